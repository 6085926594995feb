import KeychainFSControlChannel
import Foundation
import KeychainFSModel
import Testing
import KeychainFSTestSupport

extension MountedVault {
    /// Makes `genp/<service>/<account>` (the service directory, then the item) through the mount and
    /// returns the item's path; each mkdir must succeed.
    func makeItem(service: String, account: String) -> String {
        let item = path("genp/\(service)/\(account)")
        #expect(FS.mkdir(path("genp/\(service)")) == 0)
        #expect(FS.mkdir(item) == 0)
        return item
    }

    /// Adds the generic password (`service`, `account`) holding `secret`, of protection class `accessible`
    /// (`ck`, `akpu`…), through the control socket: the API's way in, not the mount's.
    func addItem(service: String = "svc", account: String, secret: String, accessible: String = "ck") throws {
        let query: KeychainDictionary = [
            "class": "genp", "svce": .string(service), "acct": .string(account), "pdmn": .string(accessible),
            "v_Data": .data(Data(secret.utf8)),
        ]
        _ = try control.send(ControlRequest(.itemAdd, ["query": .dictionary(query)])).check()
    }
}
