// sinew demos: screenshots. BMP through SDL_SaveBMP; PNG through a small writer of our own
// (deflate with fixed Huffman codes and LZ77, CRC-32, Adler-32), so no image library is needed.
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <SDL.h>

/// Writes an 8-bit RGB image (`pitch` bytes a row) as a PNG file. False on an I/O error.
bool demo_png_write(const char *path, int width, int height, const uint8_t *rgb, int pitch);

/// Saves a surface: as PNG when `path` ends in ".png", else as BMP (SDL_SaveBMP). Prints the
/// reason and returns false on failure.
bool demo_save_surface(SDL_Surface *surface, const char *path);
