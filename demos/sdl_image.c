// Screenshots: BMP via SDL, PNG via the writer below (RFC 2083 PNG, RFC 1950 zlib, RFC 1951 deflate).
// The deflate stream is one block with the fixed Huffman codes and greedy LZ77 over hash chains:
// a few times larger than zlib's best, a hundred times smaller than raw pixels on our flat
// backgrounds, and about 150 lines.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdl_image.h"

// ---------------------------------------------------------------------------------------------
// Bit output, least significant bit first (deflate's order).

typedef struct bit_writer {
    uint8_t *buf;
    size_t len, cap;
    uint32_t acc;
    int n;
    bool failed;
} bit_writer;

static void put_byte(bit_writer *w, uint8_t byte)
{
    if (w->len == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 1 << 16;
        uint8_t *buf = realloc(w->buf, cap);
        if (buf == NULL) {
            w->failed = true;
            return;
        }
        w->buf = buf;
        w->cap = cap;
    }
    w->buf[w->len++] = byte;
}

static void put_bits(bit_writer *w, uint32_t value, int count)
{
    w->acc |= value << w->n;
    w->n += count;
    while (w->n >= 8) {
        put_byte(w, (uint8_t)(w->acc & 0xffu));
        w->acc >>= 8;
        w->n -= 8;
    }
}

static void flush_bits(bit_writer *w)
{
    if (w->n > 0) {
        put_byte(w, (uint8_t)(w->acc & 0xffu));
    }
    w->acc = 0;
    w->n = 0;
}

// Huffman codes are sent most significant bit first.
static void put_code(bit_writer *w, uint32_t code, int length)
{
    uint32_t r = 0;
    for (int i = 0; i < length; ++i) {
        r = (r << 1) | ((code >> i) & 1u);
    }
    put_bits(w, r, length);
}

// The fixed literal/length code (RFC 1951, 3.2.6).
static void put_symbol(bit_writer *w, int sym)
{
    if (sym < 144) {
        put_code(w, 0x30u + (uint32_t)sym, 8);
    } else if (sym < 256) {
        put_code(w, 0x190u + (uint32_t)(sym - 144), 9);
    } else if (sym < 280) {
        put_code(w, (uint32_t)(sym - 256), 7);
    } else {
        put_code(w, 0xc0u + (uint32_t)(sym - 280), 8);
    }
}

static const uint16_t len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {1,    2,    3,    4,    5,    7,     9,     13,    17,  25,
                                       33,   49,   65,   97,   129,  193,   257,   385,   513, 769,
                                       1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6,
                                       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

static void put_match(bit_writer *w, int length, int distance)
{
    int i = 28;
    while (len_base[i] > length) {
        --i;
    }
    put_symbol(w, 257 + i);
    put_bits(w, (uint32_t)(length - len_base[i]), len_extra[i]);
    int j = 29;
    while (dist_base[j] > distance) {
        --j;
    }
    put_code(w, (uint32_t)j, 5);
    put_bits(w, (uint32_t)(distance - dist_base[j]), dist_extra[j]);
}

#define WINDOW 32768
#define HASH_BITS 15
#define MAX_CHAIN 48

// A zlib stream of `data`, appended to `w`.
static void zlib_compress(bit_writer *w, const uint8_t *data, size_t n)
{
    put_byte(w, 0x78); // deflate, 32 KiB window
    put_byte(w, 0x01); // fastest; header check bits make 0x7801 a multiple of 31
    put_bits(w, 1, 1); // final block
    put_bits(w, 1, 2); // fixed Huffman codes
    int32_t *head = malloc(sizeof(int32_t) << HASH_BITS);
    int32_t *prev = malloc(sizeof(int32_t) * WINDOW);
    if (head == NULL || prev == NULL) {
        w->failed = true;
        free(head);
        free(prev);
        return;
    }
    memset(head, 0xff, sizeof(int32_t) << HASH_BITS); // -1: empty
#define HASH(p) ((((uint32_t)(p)[0] << 10) ^ ((uint32_t)(p)[1] << 5) ^ (uint32_t)(p)[2]) & ((1u << HASH_BITS) - 1u))
    size_t pos = 0;
    while (pos < n) {
        int best_len = 0, best_dist = 0;
        if (pos + 3 <= n) {
            const uint32_t h = HASH(data + pos);
            const size_t max_len = n - pos < 258 ? n - pos : 258;
            int32_t cand = head[h];
            for (int chain = 0; cand >= 0 && pos - (size_t)cand <= WINDOW && chain < MAX_CHAIN; ++chain) {
                size_t len = 0;
                while (len < max_len && data[(size_t)cand + len] == data[pos + len]) {
                    ++len;
                }
                if ((int)len > best_len) {
                    best_len = (int)len;
                    best_dist = (int)(pos - (size_t)cand);
                    if (len == max_len) {
                        break;
                    }
                }
                const int32_t next = prev[cand & (WINDOW - 1)];
                if (next >= cand) {
                    break;
                }
                cand = next;
            }
        }
        const size_t step = best_len >= 3 ? (size_t)best_len : 1;
        if (best_len >= 3) {
            put_match(w, best_len, best_dist);
        } else {
            put_symbol(w, data[pos]);
        }
        for (size_t k = 0; k < step; ++k, ++pos) { // every position enters the hash chains
            if (pos + 3 <= n) {
                const uint32_t h = HASH(data + pos);
                prev[pos & (WINDOW - 1)] = head[h];
                head[h] = (int32_t)pos;
            }
        }
    }
#undef HASH
    put_symbol(w, 256); // end of block
    flush_bits(w);
    free(head);
    free(prev);
    uint32_t a = 1, b = 0; // Adler-32 of the uncompressed data
    for (size_t i = 0; i < n; ++i) {
        a = (a + data[i]) % 65521u;
        b = (b + a) % 65521u;
    }
    const uint32_t adler = (b << 16) | a;
    for (int s = 24; s >= 0; s -= 8) {
        put_byte(w, (uint8_t)(adler >> s));
    }
}

// ---------------------------------------------------------------------------------------------
// PNG

static uint32_t crc_table[256];

static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
    if (crc_table[1] == 0) {
        for (uint32_t i = 0; i < 256; ++i) {
            uint32_t c = i;
            for (int k = 0; k < 8; ++k) {
                c = (c & 1u) ? 0xedb88320u ^ (c >> 1) : c >> 1;
            }
            crc_table[i] = c;
        }
    }
    for (size_t i = 0; i < n; ++i) {
        crc = crc_table[(crc ^ p[i]) & 0xffu] ^ (crc >> 8);
    }
    return crc;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static bool write_chunk(FILE *f, const char type[4], const uint8_t *data, size_t len)
{
    uint8_t head[8];
    put_be32(head, (uint32_t)len);
    memcpy(head + 4, type, 4);
    uint32_t crc = crc32_update(0xffffffffu, head + 4, 4);
    crc = crc32_update(crc, data, len) ^ 0xffffffffu;
    uint8_t tail[4];
    put_be32(tail, crc);
    return fwrite(head, 1, 8, f) == 8 && (len == 0 || fwrite(data, 1, len, f) == len) && fwrite(tail, 1, 4, f) == 4;
}

static int paeth(int a, int b, int c)
{
    const int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
}

// Filters one row with the filter that gives the smallest sum of absolute values (the usual
// heuristic); out gets the filter byte and the filtered row.
static void filter_row(const uint8_t *row, const uint8_t *up, size_t n, uint8_t *out, uint8_t *scratch)
{
    long best_sum = -1;
    for (int f = 0; f < 5; ++f) {
        long sum = 0;
        for (size_t i = 0; i < n; ++i) {
            const int a = i >= 3 ? row[i - 3] : 0, b = up ? up[i] : 0, c = (up && i >= 3) ? up[i - 3] : 0;
            int pred = 0;
            switch (f) {
            case 1: pred = a; break;
            case 2: pred = b; break;
            case 3: pred = (a + b) / 2; break;
            case 4: pred = paeth(a, b, c); break;
            default: break;
            }
            const uint8_t v = (uint8_t)(row[i] - pred);
            scratch[i] = v;
            sum += v < 128 ? v : 256 - v;
        }
        if (best_sum < 0 || sum < best_sum) {
            best_sum = sum;
            out[0] = (uint8_t)f;
            memcpy(out + 1, scratch, n);
        }
    }
}

bool demo_png_write(const char *path, int width, int height, const uint8_t *rgb, int pitch)
{
    const size_t row = (size_t)width * 3, raw_len = (row + 1) * (size_t)height;
    uint8_t *raw = malloc(raw_len), *scratch = malloc(row);
    bit_writer z = {0};
    bool ok = raw != NULL && scratch != NULL;
    if (ok) {
        for (int y = 0; y < height; ++y) {
            const uint8_t *cur = rgb + (size_t)y * (size_t)pitch;
            const uint8_t *up = y > 0 ? cur - pitch : NULL;
            filter_row(cur, up, row, raw + (size_t)y * (row + 1), scratch);
        }
        zlib_compress(&z, raw, raw_len);
        ok = !z.failed;
    }
    free(raw);
    free(scratch);
    FILE *f = ok ? fopen(path, "wb") : NULL;
    if (f != NULL) {
        static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
        uint8_t ihdr[13];
        put_be32(ihdr, (uint32_t)width);
        put_be32(ihdr + 4, (uint32_t)height);
        ihdr[8] = 8;  // bits per channel
        ihdr[9] = 2;  // truecolour
        ihdr[10] = 0; // deflate
        ihdr[11] = 0; // adaptive filtering
        ihdr[12] = 0; // no interlace
        ok = fwrite(signature, 1, 8, f) == 8 && write_chunk(f, "IHDR", ihdr, 13) &&
             write_chunk(f, "IDAT", z.buf, z.len) && write_chunk(f, "IEND", NULL, 0);
        ok = (fclose(f) == 0) && ok;
    } else {
        ok = false;
    }
    free(z.buf);
    return ok;
}

bool demo_save_surface(SDL_Surface *surface, const char *path)
{
    const size_t n = strlen(path);
    const bool png = n >= 4 && SDL_strcasecmp(path + n - 4, ".png") == 0;
    if (!png) {
        if (SDL_SaveBMP(surface, path) != 0) {
            fprintf(stderr, "sinew-demos: cannot write %s: %s\n", path, SDL_GetError());
            return false;
        }
        return true;
    }
    SDL_Surface *rgb = SDL_ConvertSurfaceFormat(surface, SDL_PIXELFORMAT_RGB24, 0);
    if (rgb == NULL) {
        fprintf(stderr, "sinew-demos: cannot convert the frame: %s\n", SDL_GetError());
        return false;
    }
    bool ok = demo_png_write(path, rgb->w, rgb->h, rgb->pixels, rgb->pitch);
    SDL_FreeSurface(rgb);
    if (!ok) {
        fprintf(stderr, "sinew-demos: cannot write %s\n", path);
    }
    return ok;
}
