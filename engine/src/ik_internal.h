// What the IK arm (ik_arm.c) shares with the standalone chain solver (ik.c), which depends on the
// public headers only. Never installed.
#pragma once

#include "sinew/sinew.h"

// SINEW_OK when every limit is finite, within [-pi, pi] and min <= max; NOT_FINITE or
// OUT_OF_RANGE otherwise. `limits` may be NULL (no limits).
sinew_status sinew__ik_check_limits(const sinew_ik_limit *limits, int count);
