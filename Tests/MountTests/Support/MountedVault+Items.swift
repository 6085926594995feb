import Testing
import TestSupport

extension MountedVault {
    /// Makes `genp/<service>/<account>` (the service directory, then the item) through the mount and
    /// returns the item's path; each mkdir must succeed.
    func makeItem(service: String, account: String) -> String {
        let item = path("genp/\(service)/\(account)")
        #expect(FS.mkdir(path("genp/\(service)")) == 0)
        #expect(FS.mkdir(item) == 0)
        return item
    }
}
