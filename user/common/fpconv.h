/*
 * fpconv.h - the 16-bit float formats of the 910B: IEEE binary16 (FLOAT16)
 * and bfloat16 (BF16), to and from float, rounded to nearest even. One
 * definition for the runtime (aclFloatToFloat16 / aclFloat16ToFloat, the
 * reductions, random numbers) and the aclnn operators' results.
 */
#ifndef NPUPROF_FPCONV_H
#define NPUPROF_FPCONV_H

#include <stdint.h>

/* float to FLOAT16; saturate: NaN, Inf and overflow to the largest finite
 * value (CANN's aclFloatToFloat16), else IEEE's Inf and NaN. */
uint16_t npuprof_f16_from_float(float value, int saturate);
/* FLOAT16 to float; saturate: Inf and NaN become CANN's finite stand-ins
 * (aclFloat16ToFloat), else they stay Inf and NaN. */
float npuprof_f16_to_float(uint16_t value, int saturate);
float npuprof_bf16_to_float(uint16_t value);
/* float to BF16 (a NaN stays a quiet NaN). */
uint16_t npuprof_bf16_from_float(float value);

#endif
