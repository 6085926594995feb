// sd-bus from libsystemd: the D-Bus library of the Secret Service (docs/secret-service.md, "The library").
// Its SD_BUS_VTABLE macros do not import into Swift, so objects are served through one message callback
// per subtree (sd_bus_add_fallback) and Swift dispatches on interface and member.
#include <systemd/sd-bus.h>
