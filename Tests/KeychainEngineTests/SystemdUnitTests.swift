@testable import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Testing

/// docs/access.md: a `unit` rule names a unit of the system manager, a `user-unit` rule one of the
/// caller's user manager, as systemd lays out the cgroup tree; a cgroup a user makes in its own delegated
/// tree never passes for a system unit. (The mount test AccessRulesTests moves real processes into real
/// cgroups; these are the texts of /proc/PID/cgroup.)
@Suite struct SystemdUnitTests {
    func unit(_ text: String) -> SystemdUnit? { SystemdUnit(cgroupFile: text) }

    @Test func systemUnitsAreUnderSystemSlice() {
        #expect(unit("0::/system.slice/backup.service\n") == SystemdUnit(name: "backup.service", userManager: nil))
        #expect(
            unit("0::/system.slice/system-backup.slice/backup@1.service\n")?.name == "backup@1.service", "nested slices"
        )
        #expect(
            unit("0::/system.slice/backup.service/worker\n")?.name == "backup.service",
            "a delegated unit's own cgroups are the unit")
        #expect(
            unit("0::/system.slice/evil.service/backup.service\n")?.name == "evil.service",
            "a cgroup inside another unit is that unit")
    }

    @Test func userUnitsAreUnderTheirManager() {
        let path = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/backup.service\n"
        #expect(unit(path) == SystemdUnit(name: "backup.service", userManager: 1000))
        #expect(
            unit("0::/user.slice/user-1000.slice/user@1001.service/app.slice/backup.service\n") == nil,
            "another uid's manager")
        #expect(unit("0::/user.slice/user-1000.slice/session-3.scope\n") == nil, "a login session is no user unit")
    }

    @Test func anythingElseIsNoUnit() {
        for text in [
            "0::/\n", "0::/backup.service\n", "0::/kcfs/backup.service\n", "0::/machine.slice/backup.service\n",
            "0::/user.slice/backup.service\n", "", "garbage", "0::/system.slice\n", "0::/system.slice/\n",
        ] {
            #expect(unit(text) == nil, "\(text)")
        }
    }

    @Test func theV1SystemdHierarchyIsReadWhenThereIsNoV2Line() {
        #expect(unit("12:pids:/\n1:name=systemd:/system.slice/backup.service\n")?.name == "backup.service")
        #expect(
            unit("1:name=systemd:/system.slice/backup.service\n0::/\n")?.name == "backup.service",
            "a legacy system's v2 line shows only /")
    }

    @Test func aRuleWithoutAUnitTypeIsAService() {
        #expect(SystemdUnit.normalized("backup") == "backup.service")
        #expect(SystemdUnit.normalized("backup.timer") == "backup.timer")
    }

    @Test func theFileSyntaxKeepsSystemAndUserUnitsApart() throws {
        let rules = try AccessPolicyFile.parse(
            "[[rule]]\nunit = \"a.service\"\ngroups = [\"g\"]\n[[rule]]\nuser-unit = \"a.service\"\ngroups = [\"h\"]\n")
        #expect(rules.map(\.match) == [.unit("a.service"), .userUnit("a.service")])
        #expect(try AccessPolicyFile.parse(AccessPolicyFile.render(rules)) == rules)
        #expect(throws: AccessPolicyFile.SyntaxError.self) {
            try AccessPolicyFile.parse("[[rule]]\nunit = \"user@1000.service/app.slice/a.service\"\ngroups = [\"g\"]\n")
        }
    }
}
