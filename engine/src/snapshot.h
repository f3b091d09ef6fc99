// The snapshot's format (snapshot.c), for what checks or edits whole snapshots (the tests, the
// fuzzer): the checksum its header records. The kinds' streams are serial.h's. Never installed.
#pragma once

#include "serial.h"

// The checksum of a snapshot's payload (the header's last 8 bytes).
uint64_t sinew__snapshot_checksum(const uint8_t *bytes, size_t n);
