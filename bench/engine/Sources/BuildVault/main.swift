// BuildVault VAULT SERVICES ACCOUNTS [LISTED]: a test-device vault of SERVICES × ACCOUNTS generic passwords
// (svc<s>/acct<a> = "secret-<s>-<a>"), plus LISTED more in the service "listed" (for `ls` of a service of
// that size), added through the engine's own SecItemAdd, not through a mount, so that bench/run can
// measure a mount of 1,000,000 items without spending an hour creating them. Prints items per second.
import Foundation
import KeychainFSEngine
import KeychainFSModel

let arguments = CommandLine.arguments
guard arguments.count == 4 || arguments.count == 5, let services = Int(arguments[2]), let accounts = Int(arguments[3]),
    let listed = arguments.count == 5 ? Int(arguments[4]) : 0
else {
    FileHandle.standardError.write(Data("usage: BuildVault VAULT SERVICES ACCOUNTS [LISTED]\n".utf8))
    exit(2)
}
let keychain = try Keychain(vault: try Vault.create(at: arguments[1], testDevice: true))
let caller = Caller()
let start = Date()
for s in 0..<services {
    for a in 0..<accounts {
        _ = try keychain.add(
            [
                "class": "genp", "svce": .string("svc\(s)"), "acct": .string("acct\(a)"),
                "v_Data": .data(Data("secret-\(s)-\(a)".utf8)),
            ], caller: caller)
    }
}
for a in 0..<listed {
    _ = try keychain.add(
        ["class": "genp", "svce": "listed", "acct": .string("acct\(a)"), "v_Data": .data(Data("listed-\(a)".utf8))],
        caller: caller)
}
print(String(format: "%.0f", Double(services * accounts + listed) / Date().timeIntervalSince(start)))
