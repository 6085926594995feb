import Foundation
@testable import KeychainTesting
import Security
import Testing

/// The process-wide binding, and the test-only switch: one at a time (both touch the process's binding).
@Suite(.serialized) struct ProcessBindingTests {
    @Test func makeCurrentBindsThreadsAndRefusesASecond() throws {
        let first = try SimulatedDevice()
        let second = try SimulatedDevice()
        try first.makeCurrent()
        defer { first.resignCurrent() }
        #expect(throws: KeychainError.self, "two devices current at once would mix") { try second.makeCurrent() }
        try first.makeCurrent()  // the same device again is fine
        #expect(SimulatedDevice.current === first)
        let saved = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            #expect(TokenCode.save("from a thread") == errSecSuccess)
            saved.signal()
        }
        #expect(saved.wait(timeout: .now() + 10) == .success)
        second.run {
            #expect(SimulatedDevice.current === second, "a task's binding comes first")
            #expect(TokenCode.read().0 == errSecItemNotFound)
        }
        first.run { #expect(TokenCode.read() == (errSecSuccess, "from a thread")) }
        first.resignCurrent()
        try second.makeCurrent()
        second.resignCurrent()
        #expect(SimulatedDevice.current == nil)
    }

    /// Two tests interleaved: A saves, B saves, A reads. Each must read its own token.
    private static func interleaved(_ a: SimulatedDevice, _ b: SimulatedDevice) async -> (String?, String?) {
        let (aSaved, aSignal) = AsyncStream.makeStream(of: Void.self)
        let (bSaved, bSignal) = AsyncStream.makeStream(of: Void.self)
        async let readByA: String? = a.run {
            _ = TokenCode.save("A")
            aSignal.yield()
            for await _ in bSaved { break }
            return TokenCode.read().1
        }
        async let readByB: String? = {
            for await _ in aSaved { break }
            return b.run {
                _ = TokenCode.save("B")
                bSignal.yield()
                return TokenCode.read().1
            }
        }()
        return await (readByA, readByB)
    }

    @Test func isolationFailsWithoutTheTaskLocalBinding() async throws {
        let isolated = await Self.interleaved(try SimulatedDevice(), try SimulatedDevice())
        #expect(isolated.0 == "A" && isolated.1 == "B")

        let a = try SimulatedDevice(), b = try SimulatedDevice()
        a.taskBindingDisabledForTesting.store(true, ordering: .relaxed)
        b.taskBindingDisabledForTesting.store(true, ordering: .relaxed)
        defer { a.resignCurrent(); b.resignCurrent() }
        let mixed = await Self.interleaved(a, b)
        #expect(
            mixed.0 == "B", "without the task-local binding, A's read reaches B's device: the isolation test can fail")
    }
}
