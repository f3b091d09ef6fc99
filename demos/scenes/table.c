// The scene table: one entry per demo, in the order of their number keys.
#include "../scene.h"

extern const demo_def demo_rope, demo_cloth, demo_pile, demo_softbody, demo_ik, demo_solvers, demo_ik3;

const demo_def *const demo_table[] = {
    &demo_rope,
    &demo_cloth,
    &demo_pile,
    &demo_softbody,
    &demo_ik,
    &demo_solvers,
    &demo_ik3,
};

const int demo_count = (int)(sizeof demo_table / sizeof demo_table[0]);
