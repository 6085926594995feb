import KeychainFSChildProcesses
import Foundation
import Testing

/// How every program keychainfs starts is started (ChildProcess): nothing of ours but 0, 1 and 2, every
/// signal at its default and none blocked, a deadline that kills, bounded output, input that cannot block.
@Suite struct ChildProcessTests {
    static func text(_ output: ChildProcess.Output) -> String { String(decoding: output.stdout, as: UTF8.self) }

    @Test func aChildGetsNoDescriptorOfOurs() throws {
        let ours = open("/dev/null", O_RDONLY)  // without O_CLOEXEC: only the spawn's own closing keeps it out
        defer { close(ours) }
        let output = try ChildProcess.run("/bin/sh", ["-c", "ls /proc/$$/fd"], timeout: 10)
        #expect(output.status == 0)
        #expect(Self.text(output).split(separator: "\n").sorted() == ["0", "1", "2"], "\(Self.text(output))")
    }

    @Test func aChildStartsWithDefaultSignals() throws {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGUSR1)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let output = try ChildProcess.run("/bin/grep", ["-E", "^Sig(Blk|Ign)", "/proc/self/status"], timeout: 10)
        let masks = Self.text(output).split(separator: "\n").compactMap {
            $0.split(separator: "\t").last.flatMap { UInt64($0, radix: 16) }
        }
        // Signals 1-31 (32 and 33 are glibc's own, which no spawn can reset).
        #expect(masks.count == 2 && masks.allSatisfy { $0 & 0x7fff_ffff == 0 }, "\(Self.text(output))")
    }

    /// A program still open for writing (a copy just made, whose descriptor a child of another thread
    /// holds until it execs: CompatibilityTests met "Text file busy" that way) is started once the writer
    /// lets go; one never let go is refused with ETXTBSY after the bound, not waited for forever.
    @Test func aProgramBusyForAMomentIsStartedOnceFree() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kcfs-busy-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let program = directory.appendingPathComponent("program").path
        // O_CLOEXEC: a child another test starts meanwhile must not hold the program open for writing too.
        let writer = open(program, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o700)
        try #require(writer >= 0)
        let script = "#!/bin/sh\necho started\n"
        _ = script.withCString { write(writer, $0, strlen($0)) }
        let held = writer
        // A thread of its own lets go: a Dispatch worker, under the parallel suites on 2 cores, once came
        // later than the spawn's one-second bound (CI).
        Thread.detachNewThread {
            usleep(100_000)
            close(held)
        }
        let output = try ChildProcess.run(program, [], timeout: 10)
        #expect(output.status == 0 && Self.text(output) == "started\n", "\(Self.text(output))")

        let stuck = open(program, O_WRONLY | O_CLOEXEC)
        defer { close(stuck) }
        let start = ContinuousClock.now
        #expect(throws: ChildProcess.SpawnError.self) { _ = try ChildProcess.run(program, [], timeout: 10) }
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test func aDeadlineKills() throws {
        let start = ContinuousClock.now
        let output = try ChildProcess.run("/bin/sleep", ["30"], timeout: 0.5)
        #expect(output.timedOut && output.status == -9)
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test func outputIsBoundedAndInputCannotBlock() throws {
        let chatty = try ChildProcess.run(
            "/usr/bin/head", ["-c", "10000000", "/dev/zero"], timeout: 30, outputLimit: 1000)
        #expect(chatty.status == 0 && chatty.stdout.count == 1000, "read to the end, kept the limit")
        let deaf = try ChildProcess.run("/bin/true", [], input: Data(count: 4 << 20), timeout: 30)
        #expect(deaf.status == 0 && !deaf.timedOut, "4 MiB for a child that never reads")
        let echo = try ChildProcess.run("/bin/cat", [], input: Data("abc".utf8), timeout: 10)
        #expect(Self.text(echo) == "abc")
    }

    @Test func aMissingProgramIsAClearError() {
        #expect { _ = try ChildProcess.run("/nonexistent/program", [], timeout: 5) } throws: {
            "\($0)".contains("cannot run /nonexistent/program")
        }
    }
}
