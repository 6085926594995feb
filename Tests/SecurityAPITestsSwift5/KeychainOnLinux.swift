// The one file a module adds on Linux so that its other files, which import only Foundation as they
// do on Apple platforms, see the SecItem API.
#if os(Linux)
    @_exported import Security
#endif
