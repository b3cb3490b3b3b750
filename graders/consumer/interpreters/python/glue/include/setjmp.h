/* setjmp/longjmp for the MicroPython guest. wasi-libc has none; clang's
 * `-mllvm -enable-emscripten-sjlj` rewrites calls to these two names into `invoke_*` calls through
 * the host and `emscripten_longjmp` (see sjlj.c), so only their declarations are needed. */
#ifndef PRUEFSTEIN_SETJMP_H
#define PRUEFSTEIN_SETJMP_H
typedef unsigned long jmp_buf[4];
int setjmp(jmp_buf env);
_Noreturn void longjmp(jmp_buf env, int value);
#endif
