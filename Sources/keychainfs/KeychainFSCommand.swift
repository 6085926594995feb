import ArgumentParser
import Foundation

@main
/// Every command names itself in its configuration: otherwise ArgumentParser derives the names with
/// String(describing:), whose protocol-conformance scans over this large binary were a fifth of a CLI start.
struct KeychainFSCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keychainfs",
        abstract: "Apple's keychain on Linux: a vault mounted with FUSE, with a device-lock simulator.",
        discussion: """
            Secrets are files: cat MOUNT/genp/<service>/<account>/value. Attributes are xattrs on the item \
            directory (getfattr -d). 'keychainfs device lock' makes WhenUnlocked items unreadable (EACCES) \
            until 'keychainfs device unlock'.
            """,
        version: "0.1.0",
        subcommands: [
            Init.self, Mount.self, Unmount.self, Status.self, Device.self, Sync.self, Backup.self, Restore.self,
            MoveDeviceKey.self, ServeSecretService.self, CIKeyring.self,
            Run.self, Inject.self, Access.self,
            AddGenericPassword.self, FindGenericPassword.self, DeleteGenericPassword.self,
            AddInternetPassword.self, FindInternetPassword.self, DeleteInternetPassword.self,
            DumpKeychain.self, LockKeychain.self, UnlockKeychain.self, FindCertificate.self, FindIdentity.self,
            Import.self, Export.self, ExportTPMKey.self,
        ])

    static func main() {
        // tpm2-tss logs each TPM refusal to stderr; our errors say what it means. Set before any thread
        // exists (setenv races getenv); a TSS2_LOG of the user's is kept.
        setenv("TSS2_LOG", "all+NONE", 0)
        main(nil)
    }
}
