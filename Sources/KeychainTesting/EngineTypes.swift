// The engine's types the kit's interface uses, visible to a test that imports only KeychainTesting.
@_exported import struct KeychainFSModel.KeychainError
@_exported import struct KeychainFSEngine.DeviceStatus
@_exported import enum KeychainFSEngine.DeviceState
@_exported import struct KeychainFSEngine.PromptInfo
@_exported import enum KeychainFSEngine.PromptKind
@_exported import enum KeychainFSEngine.PromptAnswerKind
@_exported import enum KeychainFSEngine.KeychainOperation
