/*
 * fpconv.c - FLOAT16 and BF16 conversions (fpconv.h).
 */
#include "fpconv.h"

#include <string.h>

#define FP16_MAX_BITS 0x7bffU /* 65504 */

/* float to fp16, rounding to nearest even; saturate: NaN, Inf and
 * overflow to the largest finite value (CANN's aclFloatToFloat16), else
 * IEEE's Inf and NaN. */
uint16_t npuprof_f16_from_float(float value, int saturate)
{
	uint32_t x, ax, sign, m, r, rem, half;
	int e, shift;

	memcpy(&x, &value, sizeof(x));
	sign = (x >> 16) & 0x8000U;
	ax = x & 0x7fffffffU;
	if (ax > 0x7f800000U) /* NaN */
		return saturate ? FP16_MAX_BITS : (uint16_t)(sign | 0x7e00U);
	if (ax >= 0x477ff000U) /* >= 65520 rounds to Inf */
		return (uint16_t)(sign | (saturate ? FP16_MAX_BITS : 0x7c00U));
	if (ax < 0x33000000U) /* < 2^-25: rounds to zero */
		return (uint16_t)sign;
	e = (int)(ax >> 23) - 127;
	m = (ax & 0x7fffffU) | 0x800000U;
	if (e < -14) { /* subnormal: m * 2^(e+1) units of 2^-24 */
		shift = -(e + 1);
		r = m >> shift;
		rem = m & ((1U << shift) - 1);
		half = 1U << (shift - 1);
		if (rem > half || (rem == half && (r & 1)))
			r++;
		return (uint16_t)(sign | r);
	}
	r = m >> 13;
	rem = m & 0x1fffU;
	if (rem > 0x1000U || (rem == 0x1000U && (r & 1)))
		r++; /* a carry into bit 11 moves into the exponent */
	return (uint16_t)(sign | ((((uint32_t)(e + 15)) << 10) + r - 0x400U));
}

/* fp16 to float; saturate: Inf and NaN become CANN's finite stand-ins
 * (aclFloat16ToFloat), else stay Inf and NaN. */
float npuprof_f16_to_float(uint16_t value, int saturate)
{
	uint32_t sign = ((uint32_t)value & 0x8000U) << 16, e = ((uint32_t)value >> 10) & 0x1fU,
		 m = (uint32_t)value & 0x3ffU, x;
	float f;

	if (e == 31 && saturate)
		return m ? 98304.0f : (sign ? -65536.0f : 65536.0f);
	if (e == 31) {
		x = sign | 0x7f800000U | (m << 13);
		memcpy(&f, &x, sizeof(f));
		return f;
	}
	if (e == 0) {
		f = (float)m * (1.0f / 16777216.0f);
		return sign ? -f : f;
	}
	x = sign | ((e - 15 + 127) << 23) | (m << 13);
	memcpy(&f, &x, sizeof(f));
	return f;
}

float npuprof_bf16_to_float(uint16_t v)
{
	uint32_t x = (uint32_t)v << 16;
	float f;

	memcpy(&f, &x, sizeof(f));
	return f;
}

uint16_t npuprof_bf16_from_float(float f)
{
	uint32_t x;

	memcpy(&x, &f, sizeof(x));
	if ((x & 0x7fffffffU) > 0x7f800000U)
		return (uint16_t)((x >> 16) | 0x40); /* a quiet NaN */
	return (uint16_t)((x + 0x7fffU + ((x >> 16) & 1)) >> 16);
}
