import Foundation
import KeychainFSModel
import Testing

@testable import KeychainFSControlChannel

/// A peer that closes inside a frame (a daemon exiting between a reply's header and its payload) is a
/// transport failure, errSecNotAvailable, as a client's other "the daemon went away" answers; it was
/// errSecParam (-50), which a client watching through a remount saw as a bad call of its own.
@Suite struct TruncatedFrameTests {
    @Test(arguments: [[0, 0, 0, 10, 1, 2, 3], [0, 0]] as [[UInt8]])
    func aFrameCutShortIsNotAvailable(sent: [UInt8]) throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { close(pair[0]) }
        #expect(write(pair[1], sent, sent.count) == sent.count)
        close(pair[1])
        #expect {
            _ = try Framing.read(from: pair[0], limit: 1 << 20, deadline: Date().addingTimeInterval(10))
        } throws: { ($0 as? KeychainError)?.status == SecStatus.notAvailable }
    }

    @Test func aCleanEndBetweenFramesIsNoFrame() throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { close(pair[0]) }
        close(pair[1])
        #expect(try Framing.read(from: pair[0], limit: 1 << 20, deadline: Date().addingTimeInterval(10)) == nil)
    }
}
