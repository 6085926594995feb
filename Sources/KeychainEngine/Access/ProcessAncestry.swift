extension AccessPolicy {
    /// Whether process `pid` is `ancestor` or descends from it (within ``maxAncestors`` generations): the
    /// merge driver that git runs during the daemon's own sync is the daemon's descendant, no other caller is.
    public static func process(_ pid: Int32, descendsFrom ancestor: Int32) -> Bool {
        var next: Int32? = pid
        for _ in 0...maxAncestors {
            guard let current = next else { return false }
            if current == ancestor { return true }
            next = ProcessIdentity(pid: current).parent
        }
        return false
    }
}
