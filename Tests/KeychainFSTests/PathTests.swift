import Testing

@testable import KeychainFSFuse

/// A request's path is built from its inode's names (``NodeTable``) without splitting the joined bytes again;
/// whichever way a path is made, it is the same path (its components and the bytes the path cache keys on).
@Suite struct PathTests {
    static let names: [[[UInt8]]] = [
        [], [Array("genp".utf8)], [Array("genp".utf8), Array("svc".utf8), Array("acct".utf8), Array("value".utf8)],
        [Array("genp".utf8), [0xFF, 0x00, 0x25]],
        // Never from the kernel, but the same path either way: an empty name, and one holding a slash.
        [Array("genp".utf8), [], Array("svc".utf8)], [Array("genp".utf8), Array("a/b".utf8)],
    ]

    @Test(arguments: names)
    func componentsAndBytesGiveOnePath(_ components: [[UInt8]]) {
        let joined = components.map { [0x2F] + $0 }.joined()
        let split = FSPath(bytes: joined.isEmpty ? [0x2F] : Array(joined))
        let made = FSPath(components: components)
        #expect(made.components == split.components)
        #expect(made.bytes == split.bytes)
        #expect(made.parent.components == split.parent.components && made.parent.bytes == split.parent.bytes)
        let child = made.appending(Array("value".utf8))
        #expect(child.components == split.components + [Array("value".utf8)])
        let kernelNames = !components.contains { $0.isEmpty || $0.contains(0x2F) }
        // The old way (the parent's bytes, a slash, the name): the same bytes for every name the kernel sends.
        #expect(!kernelNames || child.bytes == (split.bytes == [0x2F] ? [] : split.bytes) + Array("/value".utf8))
    }
}
