// The contact speed: a pile compressed deep into overlap, then solved stiffly, must not launch
// its particles (docs/collisions.md, "Contact speed").
//
// A contact is deep when its ends overlap by more than contact_speed * h. Deep contacts alone are
// common and harmless: an impact makes a few, a pile at 4 x 1 holds 15% of its contacts deep, and
// the response's clamp keeps each pair from parting faster than it met. A launch needs long chains
// of them, a column whose overlaps all come free at once, and chains span a pile once deep
// contacts are about a third of its contacts (bond percolation on a pile's contact network, about
// six contacts per particle). So a world starts watching when more than SINEW__DEEP_SHARE of its
// contacts are deep at the end of a step, and stops once none is. While it watches, every movable
// colliding particle leaves a sub-step no faster than it was predicted to move, or than the
// contact speed if that is more (one that touched nothing moves as predicted, and is left alone):
// the bound is applied as the contact response is written back (sinew__speed_bound). The solve
// still pushes overlap out at full strength (a soft pile holds its weight only by that push:
// capping it, tried, let 2,000 balls at 1 x 1 sink into one another); only the velocity the push
// leaves is bounded.
#include "world_internal.h"

void sinew__overlap_watch(sinew_world *world, int deep, int contacts)
{
    world->deep_watch = deep > 0 && (world->deep_watch || (float)deep > SINEW__DEEP_SHARE * (float)contacts);
}
