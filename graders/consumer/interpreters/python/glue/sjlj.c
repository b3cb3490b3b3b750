/* The guest half of setjmp/longjmp as LLVM's Emscripten lowering expects it (the scheme of
 * Emscripten's emscripten_setjmp.c, MIT): a function that calls setjmp keeps a table of its
 * active setjmp ids; every call it makes that might longjmp goes through the host's
 * `env.invoke_*`, which calls the table entry and, when the callee longjmps, returns normally with
 * `__THREW__` set. `emscripten_longjmp` records the target and asks the host to unwind
 * (`env.pf_throw_longjmp`, a trap the host's `invoke_*` catches and nothing else does). */
#include <stdint.h>
#include <stdlib.h>

uintptr_t __THREW__ = 0;
int __threwValue = 0;
static uint32_t temp_ret0 = 0;
static uintptr_t setjmp_id = 0;

void setTempRet0(uint32_t value) { temp_ret0 = value; }
uint32_t getTempRet0(void) { return temp_ret0; }

__attribute__((import_module("env"), import_name("pf_throw_longjmp"))) _Noreturn void pf_throw_longjmp(void);

void setThrew(uintptr_t threw, int value) {
    if (__THREW__ == 0) {
        __THREW__ = threw;
        __threwValue = value;
    }
}

_Noreturn void emscripten_longjmp(uintptr_t env, int value) {
    setThrew(env, value);
    pf_throw_longjmp();
}

typedef struct { uintptr_t id; uint32_t label; } TableEntry;

TableEntry *saveSetjmp(uintptr_t *env, uint32_t label, TableEntry *table, uint32_t size) {
    setjmp_id++;
    *env = setjmp_id;
    for (uint32_t i = 0; i < size; i++) {
        if (table[i].id == 0) {
            table[i].id = setjmp_id;
            table[i].label = label;
            table[i + 1].id = 0;
            setTempRet0(size);
            return table;
        }
    }
    size *= 2;
    table = (TableEntry *)realloc(table, sizeof(TableEntry) * (size + 1));
    if (table == NULL) {
        abort();
    }
    table = saveSetjmp(env, label, table, size);
    setTempRet0(size);
    return table;
}

uint32_t testSetjmp(uintptr_t id, TableEntry *table, uint32_t size) {
    for (uint32_t i = 0; i < size; i++) {
        uintptr_t current = table[i].id;
        if (current == 0) {
            break;
        }
        if (current == id) {
            return table[i].label;
        }
    }
    return 0;
}
