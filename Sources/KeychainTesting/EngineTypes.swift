// The engine's types the kit's interface uses, visible to a test that imports only KeychainTesting.
@_exported import struct KeychainModel.KeychainError
@_exported import struct KeychainEngine.DeviceStatus
@_exported import enum KeychainEngine.DeviceState
@_exported import struct KeychainEngine.PromptInfo
@_exported import enum KeychainEngine.PromptKind
@_exported import enum KeychainEngine.PromptAnswerKind
@_exported import enum KeychainEngine.KeychainOperation
