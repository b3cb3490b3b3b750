//! [`Limits`]: the limits in force for one exercise (an exercise may override some of them in
//! `exercise.toml` under `[limits]`).

use serde::{Deserialize, Serialize};

use super::{grading::*, lti::*, sandbox::*, service::*};

/// The limits in force for one exercise. Defaults are the constants above; `exercise.toml` may
/// override each under `[limits]` (for example a larger fuel budget for a heavier exercise).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    pub module_bytes: usize,
    pub memory_bytes: u64,
    pub table_elements: usize,
    pub wasm_stack_bytes: usize,
    pub fuel_per_delivery: u64,
    pub sql_steps_per_statement: u64,
    pub sql_statements_per_delivery: u32,
    pub log_bytes_per_run: usize,
    pub wall_ms_per_delivery: u64,
    pub wall_ms_per_submission: u64,
    pub wasm_functions: u32,
    pub wasm_locals_per_function: u32,
    pub wasm_locals_total: u64,
    pub wasm_code_bytes: u32,
    pub wasm_function_body_bytes: u32,
    pub wasm_data_bytes: u32,
    pub wasm_types: u32,
    pub wasm_imports: u32,
    pub wasm_exports: u32,
    pub wasm_globals: u32,
    pub wasm_tables: u32,
    pub wasm_element_segments: u32,
    pub wasm_data_segments: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            module_bytes: MODULE_BYTES_MAX,
            memory_bytes: MEMORY_BYTES_MAX,
            table_elements: TABLE_ELEMENTS_MAX,
            wasm_stack_bytes: WASM_STACK_BYTES_MAX,
            fuel_per_delivery: FUEL_PER_DELIVERY,
            sql_steps_per_statement: SQL_STEPS_PER_STATEMENT,
            sql_statements_per_delivery: SQL_STATEMENTS_PER_DELIVERY,
            log_bytes_per_run: LOG_BYTES_PER_RUN,
            wall_ms_per_delivery: WALL_MS_PER_DELIVERY,
            wall_ms_per_submission: WALL_MS_PER_SUBMISSION,
            wasm_functions: WASM_FUNCTIONS_MAX,
            wasm_locals_per_function: WASM_LOCALS_PER_FUNCTION_MAX,
            wasm_locals_total: WASM_LOCALS_TOTAL_MAX,
            wasm_code_bytes: WASM_CODE_BYTES_MAX,
            wasm_function_body_bytes: WASM_FUNCTION_BODY_BYTES_MAX,
            wasm_data_bytes: WASM_DATA_BYTES_MAX,
            wasm_types: WASM_TYPES_MAX,
            wasm_imports: WASM_IMPORTS_MAX,
            wasm_exports: WASM_EXPORTS_MAX,
            wasm_globals: WASM_GLOBALS_MAX,
            wasm_tables: WASM_TABLES_MAX,
            wasm_element_segments: WASM_ELEMENT_SEGMENTS_MAX,
            wasm_data_segments: WASM_DATA_SEGMENTS_MAX,
        }
    }
}

impl Limits {
    /// The wall-clock budget of one submission's grading: a supervisor that runs gradings (a worker
    /// process) may stop one that is still running some margin after it.
    pub fn wall_per_submission(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.wall_ms_per_submission)
    }

    /// Checks that overrides stay within what the service can afford; a teacher cannot lift a
    /// limit to a value that would let one submission starve the others.
    pub fn validate(&self) -> Result<(), String> {
        // The upper bounds of the compile budget are wasmtime's own (its validator refuses more).
        let checks: [(&str, u64, u64); 19] = [
            ("module_bytes", self.module_bytes as u64, 16 * 1024 * 1024),
            ("memory_bytes", self.memory_bytes, MEMORY_BYTES_OVERRIDE_MAX),
            ("wasm_stack_bytes", self.wasm_stack_bytes as u64, 8 * 1024 * 1024),
            ("fuel_per_delivery", self.fuel_per_delivery, 1_000_000_000),
            ("sql_steps_per_statement", self.sql_steps_per_statement, 100_000_000),
            ("wall_ms_per_submission", self.wall_ms_per_submission, 60_000),
            ("wasm_functions", self.wasm_functions.into(), 1_000_000),
            ("wasm_locals_per_function", self.wasm_locals_per_function.into(), 50_000),
            ("wasm_locals_total", self.wasm_locals_total, 5_000_000),
            ("wasm_code_bytes", self.wasm_code_bytes.into(), 64 * 1024 * 1024),
            ("wasm_function_body_bytes", self.wasm_function_body_bytes.into(), 7_654_321),
            ("wasm_data_bytes", self.wasm_data_bytes.into(), 64 * 1024 * 1024),
            ("wasm_types", self.wasm_types.into(), 1_000_000),
            ("wasm_imports", self.wasm_imports.into(), 100_000),
            ("wasm_exports", self.wasm_exports.into(), 100_000),
            ("wasm_globals", self.wasm_globals.into(), 1_000_000),
            ("wasm_tables", self.wasm_tables.into(), 100),
            ("wasm_element_segments", self.wasm_element_segments.into(), 100_000),
            ("wasm_data_segments", self.wasm_data_segments.into(), 100_000),
        ];
        for (name, value, max) in checks {
            if value == 0 || value > max {
                return Err(format!("limits.{name} = {value} is outside 1..={max}"));
            }
        }
        Ok(())
    }
}

// An LTI exchange fits in the deadline of an outbox attempt; tokens outlive their margin.
const _: () = assert!(LTI_FETCH_MS_MAX <= WEBHOOK_ATTEMPT_MS_MAX);
const _: () = assert!(LTI_TOKEN_MARGIN_S < LTI_JWT_TTL_S);
const _: () = assert!(LTI_PARAM_BYTES_MAX < LTI_FORM_BYTES_MAX);
const _: () = assert!(
    LTI_LOGINS_PER_ADDRESS_MAX <= LTI_LOGINS_PER_PLATFORM_MAX
        && LTI_JWKS_INTERVAL_MS <= LTI_JWKS_MAX_AGE_DEFAULT_MS
        && LTI_JWKS_MAX_AGE_DEFAULT_MS <= LTI_JWKS_MAX_AGE_MS
);
