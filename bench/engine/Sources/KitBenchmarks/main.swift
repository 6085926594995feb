// The test kit's speed (docs/spec.md §7): prints the median time to make a SimulatedDevice (with a passcode,
// as most tests make it), the median SecItemCopyMatching of one item on a device, in-process, and the
// wall time of 1,000 tests run in parallel, each on its own device; each against its target.
//   swift run -c release --package-path bench/engine KitBenchmarks
import Foundation
import KeychainTesting
import Security

func median(_ samples: [Duration]) -> Duration { samples.sorted()[samples.count / 2] }
func microseconds(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12
}

let clock = ContinuousClock()

// A new device, as a test makes one: passcode set, unlocked.
var creations: [Duration] = []
for _ in 0..<300 {
    let start = clock.now
    let device = try SimulatedDevice(passcode: "1234")
    creations.append(clock.now - start)
    withExtendedLifetime(device) {}  // released (its directory removed) after the reading
}

enum Bench {
    /// The read every benchmark makes: one item's data.
    static var query: [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "bench",
            kSecAttrAccount as String: "me",
            kSecReturnData as String: true,
        ]
    }
}

// SecItemCopyMatching of one item, returning its data, on a test device (released at the end, with its directory).
func measureReads() throws -> [Duration] {
    let device = try SimulatedDevice(passcode: "1234")
    var reads: [Duration] = []
    device.run {
        let add: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "bench",
            kSecAttrAccount as String: "me", kSecValueData as String: Data("token".utf8),
        ]
        precondition(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
        for _ in 0..<5_000 {
            var result: CFTypeRef?
            let start = ContinuousClock.now
            let status = SecItemCopyMatching(Bench.query as CFDictionary, &result)
            reads.append(ContinuousClock.now - start)
            precondition(status == errSecSuccess)
        }
    }
    return reads
}
let reads = try measureReads()

// 1,000 tests in parallel, each on its own device: save, lock (locked read), unlock, read.
let start = clock.now
try await withThrowingTaskGroup(of: Void.self) { group in
    for n in 0..<1_000 {
        group.addTask {
            let device = try SimulatedDevice(passcode: "1234")
            try device.run {
                let add: [String: Any] = [
                    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "bench",
                    kSecAttrAccount as String: "me", kSecValueData as String: Data("t\(n)".utf8),
                    kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked,
                ]
                precondition(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
                device.lock()
                var result: CFTypeRef?
                precondition(SecItemCopyMatching(Bench.query as CFDictionary, &result) == errSecInteractionNotAllowed)
                try device.unlock(passcode: "1234")
                precondition(SecItemCopyMatching(Bench.query as CFDictionary, &result) == errSecSuccess)
            }
        }
    }
    try await group.waitForAll()
}
let thousand = clock.now - start

let create = median(creations), read = median(reads)
print(
    String(
        format: "new device (passcode set)   median %8.2f ms   target <= 5 ms    ratio %.2f",
        microseconds(create) / 1000, microseconds(create) / 5000))
print(
    String(
        format: "SecItemCopyMatching, 1 item median %8.2f us   target <= 30 us   ratio %.2f", microseconds(read),
        microseconds(read) / 30))
print(
    String(
        format: "1,000 tests in parallel     total  %8.2f s    target <= 10 s    ratio %.2f",
        microseconds(thousand) / 1e6, microseconds(thousand) / 1e7))
