// A server's start as swift-nio code writes it: the database password is read from the keychain on an
// event loop, here on the test kit's simulated device, and the device's lock is honoured.
import Foundation
import KeychainTesting
import NIOCore
import NIOPosix
import Security
import SystemPackage

enum ServerAppError: Error { case keychain(OSStatus) }

func storePassword(_ password: String, account: String) throws {
    let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "db.example.com",
        kSecAttrAccount as String: account, kSecValueData as String: Data(password.utf8),
    ]
    let status = SecItemAdd(query as CFDictionary, nil)
    guard status == errSecSuccess else { throw ServerAppError.keychain(status) }
}

func readPassword(account: String) -> Result<String, ServerAppError> {
    let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "db.example.com",
        kSecAttrAccount as String: account, kSecReturnData as String: true,
    ]
    var result: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    guard status == errSecSuccess, let data = result as? Data else { return .failure(.keychain(status)) }
    return .success(String(decoding: data, as: UTF8.self))
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let device = try SimulatedDevice(passcode: "1234")
let socketPath = FilePath(device.directory).appending("server.sock")
let answers = try device.run { () throws -> (String, OSStatus) in
    try storePassword("s3cret", account: "app")
    // The read runs on the event loop's thread, inside the device's binding (a task-local does not follow
    // a thread hop, so the loop's closure is bound again).
    let unlocked = try group.next().submit { device.run { readPassword(account: "app") } }.wait().get()
    device.lock()
    let locked = try group.next().submit { device.run { readPassword(account: "app") } }.wait()
    guard case .failure(.keychain(let status)) = locked else { return (unlocked, errSecSuccess) }
    return (unlocked, status)
}
try await group.shutdownGracefully()
print("read \(answers.0 == "s3cret" ? "the stored password" : "something else") next to \(socketPath.lastComponent!)")
print("after lock: \(answers.1)")
guard answers.0 == "s3cret", answers.1 == errSecInteractionNotAllowed else { exit(1) }
