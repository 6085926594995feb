// security-compat: what real keychain wrappers reach for, run against the vault KEYCHAIN_VAULT names
// (through its daemon when one serves it). Prints one line per check; exits 1 if any failed.
import Foundation

foundationOnlyChecks()
coreFoundationChecks()
print(failures == 0 ? "all passed" : "\(failures) failed")
exit(failures == 0 ? 0 : 1)
