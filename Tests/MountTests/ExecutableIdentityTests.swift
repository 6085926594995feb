import Foundation
import Testing
import KeychainFSTestSupport

/// docs/access.md: an `exe` rule names a file as the daemon sees it (device and inode), not the path a
/// caller's namespace shows; a caller in another mount or user namespace, one started with the loader
/// told to load other code (LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT) and one being traced match no `exe` or
/// `sha256` rule (docs/threat-model.md). Through the mount and through the control socket.
@Suite struct ExecutableIdentityTests {
    typealias Fixture = AccessRulesTests.Fixture

    /// `unshare -Urm`: the caller's own user and mount namespace, where it may bind-mount over any path
    /// (what any user can do where unprivileged user namespaces are allowed); as root without them,
    /// `unshare -m`, a mount namespace alone (the daemon refuses both alike).
    static let unshare: [String] = {
        if Command.run("/usr/bin/unshare", ["-Urm", "/bin/true"], timeout: 10).status == 0 {
            return ["/usr/bin/unshare", "-Urm"]
        }
        return ["/usr/bin/unshare", "-m"]
    }()

    /// A C compiler: the system's, else the clang that comes with the Swift toolchain.
    static let compiler: String = {
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/cc") { return "/usr/bin/cc" }
        let swift = Command.run("/bin/sh", ["-c", "readlink -f \"$(command -v swift)\""]).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        return URL(fileURLWithPath: swift).deletingLastPathComponent().appendingPathComponent("clang").path
    }()

    /// Runs `script` with /bin/sh in a namespace of its own.
    static func inOwnNamespace(_ script: String, environment: [String: String]? = nil) -> CommandResult {
        Command.run(unshare[0], Array(unshare.dropFirst()) + ["/bin/sh", "-c", script], environment: environment)
    }

    @Test func aBinaryBindMountedOverTheAllowedPathIsNotTheAllowedBinary() throws {
        let f = try Fixture()
        try f.access(["grant", "a", "--exe", f.catA])
        let value = f.m.path("genp/svc/acct/value")
        #expect(f.read(f.catA, "genp/svc/acct/value").stdout == "secret-a", "the allowed binary reads")
        // The attacker's program (catB) at the allowed path, in a namespace of its own.
        let attack = Self.inOwnNamespace("mount --bind \(f.catB) \(f.catA) && exec \(f.catA) \(value)")
        #expect(attack.stdout != "secret-a")
        #expect(
            attack.stderr.contains("No such file"),
            "cat ran and the item of group a did not exist for it: \(attack.stderr)")

        // The same through the control socket, with a copy of the CLI.
        let clientA = f.m.root + "/client-a", clientB = f.m.root + "/client-b"
        try FileManager.default.copyItem(atPath: MountedVault.binary, toPath: clientA)
        try FileManager.default.copyItem(atPath: MountedVault.binary, toPath: clientB)
        try f.access(["grant", "a", "--exe", clientA])
        let environment = ["KEYCHAIN_VAULT": f.m.vault, "KEYCHAIN_ACCESS_GROUPS": "a"]
        #expect(
            Command.run(clientA, ["find-generic-password", "-s", "svc", "-w"], environment: environment).stdout
                == "secret-a\n")
        let overSocket = Self.inOwnNamespace(
            "mount --bind \(clientB) \(clientA) && exec \(clientA) find-generic-password -s svc -w",
            environment: environment)
        #expect(overSocket.stdout != "secret-a\n")
        #expect(overSocket.status == 44, "errSecItemNotFound: the default groups: \(overSocket.stderr)")
    }

    @Test func anAllowedBinaryWithLoaderInjectionOrATracerIsNotMatched() throws {
        let f = try Fixture()
        let digest = Command.run("/usr/bin/sha256sum", [f.catB]).stdout.prefix(64)
        try f.access(["grant", "a", "--exe", f.catA])
        try f.access(["grant", "a", "--sha256", String(digest)])
        let source = f.m.root + "/inject.c", library = f.m.root + "/inject.so"
        try "void kcfs_injected(void) {}\n".write(toFile: source, atomically: true, encoding: .utf8)
        try expectSuccess(Command.run(Self.compiler, ["-shared", "-fPIC", "-o", library, source]))
        let value = "genp/svc/acct/value"
        for program in [f.catA, f.catB] {
            #expect(f.read(program, value).stdout == "secret-a", "\(program) alone reads (by exe, by sha256)")
            for variable in ["LD_PRELOAD": library, "LD_LIBRARY_PATH": f.m.root, "LD_AUDIT": library] {
                let injected = Command.run(program, [f.m.path(value)], environment: [variable.key: variable.value])
                #expect(
                    injected.stdout != "secret-a" && injected.stderr.contains("No such file"),
                    "\(program) with \(variable.key): \(injected.stderr)")
            }
        }
        let daemonLog = (try? String(contentsOfFile: f.m.vault + "/daemon.log", encoding: .utf8)) ?? ""
        #expect(
            daemonLog.contains("access rule 'exe:\(f.catA)' not applied") && daemonLog.contains("LD_PRELOAD"),
            "flagged in daemon.log: \(daemonLog)")
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") {
            let traced = Command.run("/usr/bin/strace", ["-o", "/dev/null", f.catA, f.m.path(value)])
            #expect(traced.stdout != "secret-a" && traced.stderr.contains("No such file"), "traced: \(traced.stderr)")
        }
    }

    /// A copy of an allowed binary, run once (its digest kept), then rewritten
    /// in place with other code of the same size and its modification time restored (`touch -r`).
    /// Returns what the rewritten program read of the value.
    static func rewriteInPlace(_ f: Fixture) throws -> CommandResult {
        let digest = Command.run("/usr/bin/sha256sum", [f.catB]).stdout.prefix(64)
        try f.access(["grant", "a", "--sha256", String(digest)])
        let value = "genp/svc/acct/value"
        #expect(f.read(f.catB, value).stdout == "secret-a", "the allowed copy reads")
        let reference = f.m.root + "/cat-b-times"
        try expectSuccess(Command.run("/bin/cp", ["-p", f.catB, reference]))
        let source = f.m.root + "/reader.c", reader = f.m.root + "/reader"
        try """
        #include <stdio.h>
        int main(int argc, char **argv) {
            FILE *f = fopen(argv[1], "r");
            if (!f) { perror(argv[1]); return 1; }
            for (int c; (c = fgetc(f)) != EOF;) putchar(c);
            return 0;
        }
        """.write(toFile: source, atomically: true, encoding: .utf8)
        try expectSuccess(Command.run(compiler, ["-O1", "-o", reader, source]))
        var code = try Data(contentsOf: URL(fileURLWithPath: reader))
        let size = try #require(FileManager.default.attributesOfItem(atPath: f.catB)[.size] as? Int)
        try #require(code.count <= size, "the reader fits in the allowed binary's size")
        code.append(Data(count: size - code.count))
        let handle = try #require(FileHandle(forWritingAtPath: f.catB))
        try handle.write(contentsOf: code)
        try handle.close()
        try expectSuccess(Command.run("/usr/bin/touch", ["-r", reference, f.catB]))
        #expect(Command.run("/usr/bin/sha256sum", [f.catB]).stdout.prefix(64) != digest, "other code now")
        return f.read(f.catB, value)
    }

    @Test func aBinaryRewrittenInPlaceWithItsTimesRestoredIsHashedAgain() throws {
        let f = try Fixture()
        let rewritten = try Self.rewriteInPlace(f)
        #expect(
            rewritten.stdout != "secret-a" && rewritten.stderr.contains("No such file"),
            "the rewritten file is not the allowed binary: \(rewritten)")
    }

    /// The tests above can fail: with the protection switched off (test devices only), the bind-mounted
    /// program and the preloaded allowed one read the secret, as they once did.
    @Test func withExecutableIdentitySwitchedOffTheAttacksRead() throws {
        let f = try Fixture(mountEnvironment: ["KEYCHAINFS_TEST_DISABLE_GUARDS": "executable-identity"])
        try f.access(["grant", "a", "--exe", f.catA])
        let value = f.m.path("genp/svc/acct/value")
        #expect(Self.inOwnNamespace("mount --bind \(f.catB) \(f.catA) && exec \(f.catA) \(value)").stdout == "secret-a")
        let source = f.m.root + "/inject.c", library = f.m.root + "/inject.so"
        try "void kcfs_injected(void) {}\n".write(toFile: source, atomically: true, encoding: .utf8)
        try expectSuccess(Command.run(Self.compiler, ["-shared", "-fPIC", "-o", library, source]))
        #expect(Command.run(f.catA, [value], environment: ["LD_PRELOAD": library]).stdout == "secret-a")
        #expect(try Self.rewriteInPlace(f).stdout == "secret-a", "a digest kept by size and mtime alone is borrowed")
    }
}
