import Foundation
import Testing
import KeychainFSTestSupport

/// Per-application access (docs/spec.md §12): access.toml rules decide what each process sees, through the mount
/// and through the API, with no cache answering one caller with another's result.
@Suite struct AccessRulesTests {
    /// A vault with one item per group `a` and `b` at the same name, and copies of `cat` as two programs.
    struct Fixture {
        let m: MountedVault
        let catA: String, catB: String

        /// `mountEnvironment`: the daemon's test-only switches.
        init(mountEnvironment: [String: String]? = nil) throws {
            m = try MountedVault(mountEnvironment: mountEnvironment)
            for group in ["a", "b"] {
                try expectSuccess(
                    Command.run(
                        MountedVault.binary,
                        ["add-generic-password", "-s", "svc", "-a", "acct", "-w", "secret-\(group)"],
                        environment: ["KEYCHAIN_VAULT": m.vault, "KEYCHAIN_ACCESS_GROUPS": group]))
            }
            catA = m.root + "/cat-a"
            catB = m.root + "/cat-b"
            try FileManager.default.copyItem(atPath: "/bin/cat", toPath: catA)
            try FileManager.default.copyItem(atPath: "/bin/cat", toPath: catB)
        }

        func access(_ arguments: [String]) throws {
            try expectSuccess(m.cli(["access"] + arguments + ["--vault", m.vault]))
        }
        func read(_ program: String, _ relative: String) -> CommandResult { Command.run(program, [m.path(relative)]) }
    }

    @Test func twoExecutablesSeeTheirOwnItemsInAlternation() throws {
        let f = try Fixture()
        try f.access(["grant", "a", "--exe", f.catA])
        try f.access(["grant", "b", "--exe", f.catB])
        for _ in 0..<20 {
            #expect(f.read(f.catA, "genp/svc/acct/value").stdout == "secret-a")
            #expect(f.read(f.catB, "genp/svc/acct/value").stdout == "secret-b")
        }
        let other = f.read("/bin/cat", "genp/svc/acct/value")
        #expect(
            other.status != 0 && other.stderr.contains("No such file"), "the mount's default group holds no such item")
        let listed = f.m.cli(["access", "list", "--vault", f.m.vault]).stdout
        #expect(listed.contains("exe \(f.catA)") && listed.contains("groups: b"))
        // Revoking applies at once, without a remount.
        try f.access(["revoke", "b", "--exe", f.catB])
        #expect(f.read(f.catB, "genp/svc/acct/value").status != 0)
        #expect(f.read(f.catA, "genp/svc/acct/value").stdout == "secret-a")
    }

    @Test func theAPIFollowsTheRulesByPeerProcess() throws {
        let f = try Fixture()
        let clientA = f.m.root + "/client-a", clientB = f.m.root + "/client-b"
        try FileManager.default.copyItem(atPath: MountedVault.binary, toPath: clientA)
        try FileManager.default.copyItem(atPath: MountedVault.binary, toPath: clientB)
        try f.access(["grant", "a", "--exe", clientA])
        try f.access(["grant", "b", "--exe", clientB])
        // What a client claims is ignored while rules exist: the peer's executable decides.
        let claimed = ["KEYCHAIN_VAULT": f.m.vault, "KEYCHAIN_ACCESS_GROUPS": "a,b"]
        #expect(
            Command.run(clientA, ["find-generic-password", "-s", "svc", "-w"], environment: claimed).stdout
                == "secret-a\n")
        #expect(
            Command.run(clientB, ["find-generic-password", "-s", "svc", "-w"], environment: claimed).stdout
                == "secret-b\n")
        #expect(
            Command.run(MountedVault.binary, ["find-generic-password", "-s", "svc", "-w"], environment: claimed).status
                == 44)
    }

    @Test func catUnderTwoParentsSeesWhatEachParentMay() throws {
        let f = try Fixture()
        let parentA = f.m.root + "/deploy-a", parentB = f.m.root + "/deploy-b"
        try FileManager.default.copyItem(atPath: "/bin/dash", toPath: parentA)
        try FileManager.default.copyItem(atPath: "/bin/dash", toPath: parentB)
        try f.access(["grant", "a", "--exe", parentA, "--ancestor"])
        try f.access(["grant", "b", "--exe", parentB, "--ancestor"])
        let value = f.m.path("genp/svc/acct/value")
        // `cat; true` keeps the shell alive as cat's parent (no exec of the last command).
        #expect(Command.run(parentA, ["-c", "/bin/cat \(value); true"]).stdout == "secret-a")
        #expect(Command.run(parentB, ["-c", "/bin/cat \(value); true"]).stdout == "secret-b")
        #expect(Command.run("/bin/cat", [value]).status != 0)
    }

    /// Cgroups made for a test under the cgroup v2 hierarchy, as systemd names them; on the way out each
    /// is removed (deepest first), and only those it made.
    final class TestCgroups {
        let root: String
        private var made: [String] = []

        init() throws {
            let mounts = try String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)
            let fields: [[Substring]] = mounts.split(separator: "\n").map { $0.split(separator: " ") }
            let entry = try #require(
                fields.first { $0.count > 2 && $0[2] == "cgroup2" }, "a cgroup2 hierarchy is mounted")
            root = String(entry[1])
        }

        /// The directory of cgroup `path` (`/system.slice/x.service`), made with the parents it lacks.
        func make(_ path: String) throws -> String {
            var current = root
            for component in path.split(separator: "/") {
                current += "/" + component
                if mkdir(current, 0o755) == 0 {
                    made.append(current)
                } else if errno != EEXIST {
                    throw CocoaError(.fileWriteNoPermission)
                }
            }
            return current
        }

        deinit { for directory in made.reversed() { rmdir(directory) } }
    }

    /// docs/access.md: `unit = NAME` is a unit of the system manager (/system.slice/…/NAME); a user's own
    /// cgroup of that name under its user manager does not match it, and `user-unit = NAME` is that one.
    @Test func unitRulesTellSystemUnitsFromAUsersOwnCgroups() throws {
        let f = try Fixture()
        let cgroups = try TestCgroups()
        let unit = "kcfs-test-\(UUID().uuidString.prefix(8).lowercased()).service"
        let uid = getuid()
        let system = try cgroups.make("/system.slice/\(unit)")
        let user = try cgroups.make("/user.slice/user-\(uid).slice/user@\(uid).service/app.slice/\(unit)")
        let elsewhere = try cgroups.make("/kcfs-test-\(UUID().uuidString.prefix(8).lowercased()).slice/\(unit)")
        let value = f.m.path("genp/svc/acct/value")
        func read(in directory: String) -> CommandResult {
            // The shell joins the cgroup, then becomes cat: the reader is in the cgroup when it opens.
            Command.run("/bin/sh", ["-c", "echo $$ > \(directory)/cgroup.procs && exec /bin/cat \(value)"])
        }
        try f.access(["grant", "b", "--unit", unit])
        #expect(read(in: system).stdout == "secret-b", "the system unit")
        #expect(read(in: user).status != 0, "a user's cgroup of the same name is not the system unit")
        #expect(read(in: elsewhere).status != 0, "nor a cgroup of that name anywhere else")
        #expect(Command.run("/bin/cat", [value]).status != 0, "outside the unit: the default group")
        try f.access(["revoke", "b", "--unit", unit])
        try f.access(["grant", "b", "--user-unit", unit])
        #expect(read(in: user).stdout == "secret-b", "the user unit of the caller's own manager")
        #expect(read(in: system).status != 0, "a user-unit rule is not the system unit")
        #expect(f.m.cli(["access", "list", "--vault", f.m.vault]).stdout.contains("user-unit \(unit)"))
    }

    @Test func strictRefusesAnUnknownBinary() throws {
        let m = try MountedVault(mountArguments: ["--strict"])
        let refusedAdd = Command.run(
            MountedVault.binary, ["add-generic-password", "-s", "svc", "-a", "acct", "-w", "secret-a"],
            environment: ["KEYCHAIN_VAULT": m.vault])
        #expect(
            refusedAdd.status == 30 && refusedAdd.stderr.contains("strict"),
            "errSecMissingEntitlement (-34018): exit 30")
        try expectSuccess(m.cli(["access", "grant", "a", "--exe", MountedVault.binary, "--vault", m.vault]))
        try expectSuccess(
            Command.run(
                MountedVault.binary, ["add-generic-password", "-s", "svc", "-a", "acct", "-w", "secret-a"],
                environment: ["KEYCHAIN_VAULT": m.vault]))
        let catA = m.root + "/cat-a", catB = m.root + "/cat-b"
        try FileManager.default.copyItem(atPath: "/bin/cat", toPath: catA)
        try FileManager.default.copyItem(atPath: "/bin/cat", toPath: catB)
        try expectSuccess(m.cli(["access", "grant", "a", "--exe", catA, "--vault", m.vault]))
        #expect(Command.run(catA, [m.path("genp/svc/acct/value")]).stdout == "secret-a")
        let refused = Command.run(catB, [m.path("genp/svc/acct/value")])
        #expect(refused.status != 0 && refused.stderr.contains("Permission denied"))
    }
}
