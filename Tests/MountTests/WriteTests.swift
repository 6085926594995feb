import Foundation
import Synchronization
import Testing
import KeychainFSTestSupport

/// Writing `value` (docs/spec.md §4): buffered per open file, committed atomically at close.
@Suite struct WriteTests {
    let m: MountedVault
    let item: String
    init() throws {
        m = try MountedVault()
        item = m.makeItem(service: "com.example.api", account: "deploy")
    }

    @Test func printfThenCat() throws {
        // Made by mkdir, not yet stored: no value to read (not an empty secret).
        #expect(FS.read(item + "/value").errno == ENODATA, "an item in the making has no value yet")
        let shell = Command.run("/bin/sh", ["-c", "printf s > '\(item)/value' && cat '\(item)/value'"])
        #expect(shell.succeeded && shell.stdout == "s")
        let append = Command.run("/bin/sh", ["-c", "printf t >> '\(item)/value' && cat '\(item)/value'"])
        #expect(append.stdout == "st")
        let truncate = Command.run("/usr/bin/truncate", ["-s", "1", item + "/value"])
        #expect(truncate.succeeded && FS.text(item + "/value") == "s")
    }

    @Test func aReaderDuringRewritesSeesOldOrNewNeverAMix() throws {
        // Values larger than one FUSE read, so a reader needs several read() calls per version.
        let size = 300_000
        let a = Data(repeating: 0x41, count: size), b = Data(repeating: 0x42, count: size)
        #expect(FS.write(item + "/value", a) == 0)
        let stop = Flag()
        let torn = Counter(), reads = Counter()
        let path = item + "/value"
        let reader = Thread {
            while !stop.isSet {
                guard case .success(let data) = FS.read(path) else { torn.increment(); continue }
                reads.increment()
                if data != a && data != b { torn.increment() }
            }
        }
        reader.start()
        for i in 0..<40 { #expect(FS.write(item + "/value", i % 2 == 0 ? b : a) == 0) }
        stop.set()
        #expect(m.wait { reader.isFinished })
        #expect(reads.value > 0)
        #expect(torn.value == 0, "a reader saw a mix of two versions")
    }

    /// Small values are kept in the kernel's page cache (docs/spec.md §4 gatekeeper path). A writer is direct_io
    /// and its O_TRUNC goes to its own buffer, so readers opening flat out while values of different
    /// lengths are written see the old or the new one: never empty, cut or padded.
    @Test func pageCachedReadersDuringRewritesSeeOldOrNew() throws {
        let short = Data("short".utf8), long = Data("a much longer value, longer than the short one".utf8)
        let path = item + "/value"
        #expect(FS.write(path, short) == 0)
        let stop = Flag()
        let wrong = Counter(), reads = Counter()
        let seen = Mutex<[String]>([])
        let reader = Thread {
            while !stop.isSet {
                let result = FS.read(path)
                reads.increment()
                if case .success(let data) = result, data == short || data == long { continue }
                wrong.increment()
                seen.withLock { $0.append("\(result.map { String(decoding: $0, as: UTF8.self).debugDescription })") }
            }
        }
        reader.start()
        for i in 0..<400 { #expect(FS.write(path, i % 2 == 0 ? long : short) == 0) }
        stop.set()
        #expect(m.wait { reader.isFinished })
        #expect(reads.value > 100)
        #expect(
            wrong.value == 0,
            "a reader saw neither version (\(wrong.value) of \(reads.value) reads): \(seen.withLock { $0.prefix(5) })")
    }

    /// `truncate -s N value` opens, ftruncates and closes without writing: the close commits, so the
    /// next open reads the truncated value (committed at the asynchronous RELEASE, it once did not, under load).
    @Test func anFtruncateIsCommittedWhenCloseReturns() throws {
        let path = item + "/value"
        for round in 0..<30 {
            #expect(FS.write(path, "value-\(round)-long") == 0)
            let fd = open(path, O_WRONLY)
            #expect(fd >= 0 && ftruncate(fd, 5) == 0)
            #expect(close(fd) == 0)
            #expect(FS.text(path) == "value", "round \(round)")
        }
    }

    @Test func oversizedValueIsEFBIGAndChangesNothing() throws {
        // Repeated: a rejected write once showed up as an empty value under load (not reproduced since).
        for _ in 0..<10 {
            #expect(FS.write(item + "/value", "kept") == 0)
            #expect(FS.write(item + "/value", Data(count: (1 << 20) + 1)) == EFBIG)
            let after = FS.read(item + "/value").map(\.count)
            #expect(after == .success(4), "the rejected write changed the value: \(after)")
        }
        #expect(FS.write(item + "/value", Data(repeating: 7, count: 1 << 20)) == 0, "exactly 1 MiB is fine")
        #expect(Command.run("/usr/bin/truncate", ["-s", "2M", item + "/value"]).status != 0)
    }

    @Test func writesNeedTheItemToBeAvailable() throws {
        #expect(FS.write(item + "/value", "v1") == 0)
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("lock"))
        #expect(FS.write(item + "/value", "v2") == EACCES)
        try expectSuccess(m.device("unlock", passcode: "1234"))
        #expect(FS.text(item + "/value") == "v1")
    }
}

final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}

extension WriteTests {
    @Test func aShellRedirectionNeverShowsReadersAnEmptyValue() throws {
        #expect(FS.write(item + "/value", "old-secret") == 0)
        let stop = Flag(), empties = Counter()
        let path = item + "/value"
        let reader = Thread {
            while !stop.isSet {
                if case .success(let data) = FS.read(path), data.isEmpty { empties.increment() }
            }
        }
        reader.start()
        for i in 0..<30 {
            #expect(Command.run("/bin/sh", ["-c", "printf 'secret-\(i)' > '\(path)'"]).succeeded)
        }
        stop.set()
        #expect(m.wait { reader.isFinished })
        #expect(empties.value == 0, "readers saw an empty value during rotations")
        #expect(FS.text(path) == "secret-29")
        #expect(Command.run("/bin/sh", ["-c", ": > '\(path)'"]).succeeded)
        #expect(m.wait(3) { FS.text(path) == "" }, "a truncation alone lands (at release)")
    }
}
