// The one file a module adds on Linux (docs/swift-api.md): its other files import only Foundation, as on Apple
// platforms, and see the Security API through it.
#if os(Linux)
    @_exported import Security
#endif
