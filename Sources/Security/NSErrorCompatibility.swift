import Foundation

/// `NSError()` as Apple's Foundation allows it (an empty error: domain "", code 0). Corelibs Foundation
/// has no such initializer and one cannot be added in an extension; a function of the same name is
/// chosen for the empty call while `NSError(domain:code:userInfo:)` still reaches the class.
public func NSError() -> NSError {
    Foundation.NSError(domain: "", code: 0)
}
