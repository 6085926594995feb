import KeychainFSControlChannel
import Foundation
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// docs/threat-model.md, "The control socket": over the control socket the caller is the process that sends each
/// request, a flood of connections never delays the device, a dead client's prompt leaves the queue, and
/// the daemon never opens a path a client names. The time limits only catch a hang: the whole run starts
/// about 500 tests at once on 2 cores, where a test of a few seconds alone can take a minute.
@Suite struct ControlCallerTests {
    /// A strict mount whose only rule allows a copy of `sleep`: a program that sends no request of its own,
    /// so any answer it "gets" is borrowed.
    struct Fixture {
        let m: MountedVault
        let allowed: String
        let allowedClient: String
        let socket: String

        /// `mountEnvironment`: the daemon's test switches (the strict remount's).
        init(mountEnvironment: [String: String]? = nil) throws {
            m = try MountedVault()
            try expectSuccess(
                Command.run(
                    MountedVault.binary, ["add-generic-password", "-s", "svc", "-a", "acct", "-w", "borrowed-secret"],
                    environment: ["KEYCHAIN_VAULT": m.vault]))
            m.unmount()
            try expectSuccess(m.remount(["--strict"], environment: mountEnvironment))
            allowed = m.root + "/allowed-sleep"
            try FileManager.default.copyItem(atPath: "/bin/sleep", toPath: allowed)
            try expectSuccess(m.cli(["access", "grant", "default", "--exe", allowed, "--vault", m.vault]))
            // A client program the rules allow too: it is served, so the refusals are about borrowing.
            allowedClient = m.root + "/allowed-client"
            try FileManager.default.copyItem(atPath: MountedVault.binary, toPath: allowedClient)
            try expectSuccess(m.cli(["access", "grant", "default", "--exe", allowedClient, "--vault", m.vault]))
            socket = ControlSocket.path(for: Vault(directory: m.vault))
        }

        /// Runs `script` (Python) with the socket, the allowed program and a copy-matching request frame.
        func attack(_ script: String) -> CommandResult {
            let request = RawControl.frame(
                "item.copy-matching",
                ["query": .dictionary(["class": "genp", "svce": "svc", "acct": "acct", "r_Data": true])])
            let file = m.root + "/attack.py"
            _ = FileManager.default.createFile(
                atPath: file, contents: Data((Self.prelude + RawControl.pythonAnswer + script).utf8))
            let daemon = m.daemonPID ?? 0
            // Whatever the script did, the daemon runs on afterwards (a stopped one would hang the clean-up).
            defer { if daemon > 0 { kill(daemon, SIGCONT) } }
            return Command.run(
                "/usr/bin/python3", [file, socket, allowed, request.base64EncodedString(), String(daemon)], timeout: 30)
        }

        /// Stop the daemon, connect and write the request while it cannot greet,
        /// exec the allowed binary, let the daemon go on; a child reads the reply.
        static let whileTheDaemonIsStopped = """
            os.kill(daemon, signal.SIGSTOP)
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(path)
            s.sendall(request)
            if os.fork() == 0:
                time.sleep(0.5)            # the parent is the allowed binary by now
                os.kill(daemon, signal.SIGCONT)
                sys.stdout.buffer.write(reply(s)); sys.stdout.flush(); os._exit(0)
            os.execv(allowed, [allowed, "2"])
            """

        static let prelude =
            """
            import base64, os, signal, socket, struct, sys, time
            path, allowed, request = sys.argv[1], sys.argv[2], base64.b64decode(sys.argv[3])
            daemon = int(sys.argv[4]) if len(sys.argv) > 4 else 0
            def reply(s):
                data = b""
                while True:
                    chunk = s.recv(65536)
                    if not chunk: break
                    data += chunk
                return data

            """
    }

    /// The attack: connect, hand the socket to a child, exec an allowed binary; the child asks.
    @Test(.timeLimit(.minutes(3))) func aChildGivenTheSocketIsNotTheProcessThatConnected() throws {
        let f = try Fixture()
        let out = f.attack(
            """
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(path)
            if os.fork() == 0:
                time.sleep(0.5)            # the parent is the allowed binary by now
                s.sendall(answer(s, request))
                sys.stdout.buffer.write(reply(s)); sys.stdout.flush(); os._exit(0)
            os.execv(allowed, [allowed, "2"])
            """)
        #expect(!out.stdout.contains("borrowed-secret"), "the child read the secret through its parent's connection")
        #expect(out.stdout.contains("not by process"), "\(out.stdout)\(out.stderr)")
    }

    /// The same with the descriptor passed to an unrelated process over a Unix socket (SCM_RIGHTS).
    @Test(.timeLimit(.minutes(3))) func aPassedDescriptorIsNotTheProcessThatConnected() throws {
        let f = try Fixture()
        let out = f.attack(
            """
            a, b = socket.socketpair()
            if os.fork() == 0:
                msg, fds, _, _ = socket.recv_fds(b, 1, 1)
                s = socket.socket(fileno=fds[0]); time.sleep(0.5)
                s.sendall(answer(s, request))
                sys.stdout.buffer.write(reply(s)); sys.stdout.flush(); os._exit(0)
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(path)
            socket.send_fds(a, [b"x"], [s.fileno()])
            os.execv(allowed, [allowed, "2"])
            """)
        #expect(!out.stdout.contains("borrowed-secret"))
        #expect(out.stdout.contains("not by process"), "\(out.stdout)\(out.stderr)")
    }

    /// A process that writes its request and then executes the allowed binary is refused either way: as
    /// itself, or as a process that changed its executable since it connected.
    @Test(.timeLimit(.minutes(3))) func execAfterTheRequestBorrowsNothing() throws {
        let f = try Fixture()
        for _ in 0..<5 {
            let out = f.attack(
                """
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(path)
                time.sleep(0.2)
                r, w = os.pipe()
                if os.fork() == 0:
                    os.read(r, 1)
                    sys.stdout.buffer.write(reply(s)); sys.stdout.flush(); os._exit(0)
                s.sendall(answer(s, request)); os.write(w, b"x")
                os.execv(allowed, [allowed, "1"])
                """)
            #expect(!out.stdout.contains("borrowed-secret"))
        }
        // An allowed client of its own is served: the refusals above are about borrowing, not the rule.
        let own = Command.run(
            f.allowedClient, ["find-generic-password", "-s", "svc", "-w"], environment: ["KEYCHAIN_VAULT": f.m.vault])
        #expect(own.stdout == "borrowed-secret\n", "\(own.stdout)\(own.stderr)")
        let other = Command.run(
            MountedVault.binary, ["find-generic-password", "-s", "svc", "-w"],
            environment: ["KEYCHAIN_VAULT": f.m.vault])
        #expect(other.status != 0 && !other.stdout.contains("borrowed-secret"), "an unmatched program is refused")
    }

    /// A daemon stopped by the user's other process accepts only after the
    /// attacker wrote its request and executed the allowed binary; the request cannot answer the greeting
    /// the daemon sends after stamping the process, so nothing is borrowed, however long the stop.
    @Test(.timeLimit(.minutes(3))) func aRequestWrittenWhileTheDaemonIsStoppedBorrowsNothing() throws {
        let f = try Fixture()
        for _ in 0..<5 {
            let out = f.attack(Fixture.whileTheDaemonIsStopped)
            #expect(!out.stdout.contains("borrowed-secret"), "the request written before the greeting was served")
            #expect(out.stdout.contains("greeting"), "\(out.stdout)\(out.stderr)")
        }
        #expect(f.m.control.isDaemonRunning)
    }

    /// The test above can fail: with connections not bound (a test device's switch), the stopped daemon
    /// stamps the allowed binary at accept and serves the request written before the exec.
    @Test(.timeLimit(.minutes(3))) func withConnectionBindingSwitchedOffTheStoppedDaemonIsBorrowed() throws {
        let f = try Fixture(mountEnvironment: ["KEYCHAINFS_TEST_DISABLE_GUARDS": AccessPolicy.connectionBindingSwitch])
        let outs = (0..<3).map { _ in f.attack(Fixture.whileTheDaemonIsStopped) }
        #expect(outs.contains { $0.stdout.contains("borrowed-secret") }, "\(outs.map(\.stdout))")
    }

    /// Idle connections of the same user no longer delay `device lock`.
    @Test(.timeLimit(.minutes(3))) func aFloodOfIdleConnectionsDoesNotDelayTheLock() throws {
        let m = try MountedVault()
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.cli(["add-generic-password", "-s", "svc", "-a", "acct", "-w", "flood", m.vault]))
        // The control: the slowest of three locks with no idle connection, on the machine as loaded as it is now.
        var control = 0.0
        for _ in 0..<3 {
            let started = Date()
            try expectSuccess(m.device("lock"))
            control = max(control, Date().timeIntervalSince(started))
            try expectSuccess(m.device("unlock", passcode: "1234"))
        }
        let socket = ControlSocket.path(for: Vault(directory: m.vault))
        var idle: [RawControl] = []
        defer { idle.forEach { $0.close() } }
        for _ in 0..<(ControlServer.maxWaitingPerUser * 3) { if let c = RawControl(path: socket) { idle.append(c) } }
        let started = Date()
        try expectSuccess(m.device("lock"))
        let took = Date().timeIntervalSince(started)
        #expect(
            took < control * 10, "device lock took \(took) s behind \(idle.count) idle connections, \(control) s alone")
        #expect(took < 60, "hang guard")
        #expect(FS.read(m.path("genp/svc/acct/value")) == .failure(Errno(EACCES)))
        #expect(
            ControlBoundsTests.openSockets(try #require(m.daemonPID)) <= ControlServer.maxWaitingPerUser + 8,
            "connections per user are capped")
    }

    /// A client killed while its request waits for a prompt takes its prompt with it; the next
    /// answer goes to the live client's prompt.
    @Test(.timeLimit(.minutes(3))) func aDeadClientsPromptLeavesTheQueue() throws {
        let m = try MountedVault()
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("biometry", "enroll"))
        _ = try m.control.send(
            ControlRequest(
                .itemAdd,
                [
                    "query": .dictionary([
                        "class": "genp", "svce": "face", "acct": "token",
                        "v_Data": .data(Data("s3cret".utf8)), "accc": .number(1 << 1),
                    ])
                ])
        ).check()
        try expectSuccess(m.device("prompt", "auto", "off"))
        let pending = {
            m.cli(["device", "prompts", "--mount", m.mount]).stdout.split(separator: "\n").filter {
                $0.contains("pid") || $0.contains("face")
            }
        }
        let dead = Process()
        dead.executableURL = URL(fileURLWithPath: MountedVault.binary)
        dead.arguments = ["find-generic-password", "-s", "face", "-w", m.vault]
        dead.standardOutput = FileHandle.nullDevice
        dead.standardError = FileHandle.nullDevice
        try dead.run()
        #expect(m.wait(10) { pending().count == 1 }, "the first client's prompt is pending")
        kill(dead.processIdentifier, SIGKILL)
        dead.waitUntilExit()
        #expect(m.wait(3) { pending().isEmpty }, "the dead client's prompt is gone: \(pending())")
        // A live client's prompt is the one the next answer reaches.
        let live = DispatchQueue(label: "live")
        let result = Results<CommandResult>(count: 1)
        let vault = m.vault
        live.async {
            result.set(0, Command.run(MountedVault.binary, ["find-generic-password", "-s", "face", "-w", vault]))
        }
        #expect(m.wait(10) { pending().count == 1 })
        try expectSuccess(m.device("prompt", "match"))
        #expect(m.wait(10) { result.values[0] != nil })
        #expect(result.values[0]?.stdout == "s3cret\n", "\(String(describing: result.values[0]))")
    }

    /// `restore` reads the user's file in the client; FIFOs, devices, symlinks and oversized files
    /// are refused at once with a clear error, and a request naming a path is refused by the daemon.
    @Test(.timeLimit(.minutes(3))) func restoreOpensOnlyRegularFilesOfBoundedSize() throws {
        let m = try MountedVault()
        let fifo = m.root + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let big = m.root + "/big"
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        #expect(truncate(big, off_t(Keychain.maxBackupBytes + 1)) == 0)
        let link = m.root + "/link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: big)
        for (path, says) in [
            (fifo, "not a regular file"), ("/dev/zero", "not a regular file"), (big, "at most"), (link, "symlink"),
            (m.root, "not a regular file"),
        ] {
            let started = Date()
            let r = m.cli(["restore", path, "--mount", m.mount, "--password-stdin"], stdin: "pw\n")
            #expect(!r.succeeded && r.stderr.contains(says), "\(path): \(r.stderr)")
            #expect(Date().timeIntervalSince(started) < 10, "\(path) took \(Date().timeIntervalSince(started)) s")
        }
        let raw = try #require(RawControl(path: ControlSocket.path(for: Vault(directory: m.vault))))
        defer { raw.close() }
        raw.request("vault.restore", ["path": .string(big), "password": .data(Data("pw".utf8))])
        shutdown(raw.fd, Int32(SHUT_WR))
        let byPath = raw.reply()
        #expect(
            byPath?.status == SecStatus.param, "the daemon takes bytes, never a path: \(String(describing: byPath))")
        let daemon = try #require(m.daemonPID)
        #expect(ControlBoundsTests.residentMiB(daemon) < 200)
        #expect(m.control.isDaemonRunning)
    }
}
