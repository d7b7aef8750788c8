/*
 * hostfmt.c - the CRC-32 that protects the blocks of the raw host stream
 * (npuprof/hostfmt.h). The recorder computes it when it writes a block, the
 * decoder when it reads one back: the one implementation, in both libraries.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "npuprof/hostfmt.h"

/* Slicing-by-8: eight bytes per step. The writer checksums everything the
 * producers record, so a byte-at-a-time CRC would cap the stream rate. */
static uint32_t g_crc_table[8][256];
static pthread_once_t g_crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		g_crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			g_crc_table[t][i] = (g_crc_table[t - 1][i] >> 8) ^
					    g_crc_table[0][g_crc_table[t - 1][i] & 0xFF];
}

uint32_t npuprof_crc32(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;

	pthread_once(&g_crc_once, crc_init);
	crc = ~crc;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	while (len >= 8) {
		uint32_t lo, hi;

		memcpy(&lo, p, 4);
		memcpy(&hi, p + 4, 4);
		lo ^= crc;
		crc = g_crc_table[7][lo & 0xFF] ^ g_crc_table[6][(lo >> 8) & 0xFF] ^
		      g_crc_table[5][(lo >> 16) & 0xFF] ^ g_crc_table[4][lo >> 24] ^
		      g_crc_table[3][hi & 0xFF] ^ g_crc_table[2][(hi >> 8) & 0xFF] ^
		      g_crc_table[1][(hi >> 16) & 0xFF] ^ g_crc_table[0][hi >> 24];
		p += 8;
		len -= 8;
	}
#endif
	while (len--)
		crc = g_crc_table[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
	return ~crc;
}

uint32_t npuprof_hostfmt_block_crc(const struct npuprof_hostfmt_block_header *bh,
				   const void *records)
{
	struct npuprof_hostfmt_block_header h = *bh;

	h.crc = 0;
	return npuprof_crc32(npuprof_crc32(0, &h, sizeof(h)), records, h.size);
}
