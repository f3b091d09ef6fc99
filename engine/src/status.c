// Status strings and names, generated from the one X-macro list in base.h.
#include "sinew/base.h"

const char *sinew_status_string(sinew_status status)
{
    static const char *const strings[] = {
#define SINEW_X_STRING(name, msg) msg,
        SINEW_STATUS_LIST(SINEW_X_STRING)
#undef SINEW_X_STRING
    };
    if ((unsigned)status >= (unsigned)SINEW_STATUS_COUNT) {
        return "unknown status";
    }
    return strings[status];
}

const char *sinew_status_name(sinew_status status)
{
    static const char *const names[] = {
#define SINEW_X_NAME(name, msg) #name,
        SINEW_STATUS_LIST(SINEW_X_NAME)
#undef SINEW_X_NAME
    };
    if ((unsigned)status >= (unsigned)SINEW_STATUS_COUNT) {
        return "SINEW_STATUS_UNKNOWN";
    }
    return names[status];
}
