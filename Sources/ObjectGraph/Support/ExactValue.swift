// Taking a value of a known type out of an `Any` without a dynamic cast. `as?` goes through the
// runtime's general cast (unwrapping, bridging, protocol checks: a hundred-odd instructions);
// when the boxed value's type is exactly the one wanted, opening the box and comparing two type
// pointers is enough, and the value is copied out as that type.

import Foundation

@usableFromInline
enum ExactValue {
    /// The value in `box` when its type is exactly `Value`; nil otherwise (the caller then
    /// casts, which handles subclasses, protocols and bridging).
    @inlinable
    static func unbox<Value>(_ box: Any, as _: Value.Type) -> Value? {
        func project<Stored>(_ stored: Stored) -> Value? {
            guard Stored.self == Value.self else { return nil }
            // The same type: its bytes are a Value's (copied, retaining what it holds).
            return unsafeBitCast(stored, to: Value.self)
        }
        return _openExistential(box, do: project)
    }

    /// The value in `box` when its type is exactly `Value` (snapshots hold values so).
    @inlinable
    static func unbox<Value>(_ box: any Hashable & Sendable, as _: Value.Type) -> Value? {
        func project<Stored: Hashable & Sendable>(_ stored: Stored) -> Value? {
            guard Stored.self == Value.self else { return nil }
            return unsafeBitCast(stored, to: Value.self)
        }
        return _openExistential(box, do: project)
    }

    /// The attribute value a row holds at `element`, when it can be read in place as a `Value`:
    /// a value of exactly type `Value` stored in the existential's inline buffer; nil otherwise
    /// (no value, another type or case: the caller takes the general path). Matching the case
    /// with `switch` would copy the element, so its tag byte is compared instead
    /// (``valueCaseTag``); a `.value` payload, an `any Hashable & Sendable`, lies at the start of
    /// the enum: a three-word buffer, then its type's metadata. Only types known to fit that
    /// buffer are read from it. For stored attribute slots, whose cases are `.value`, `.null`
    /// and `.unloaded`. A test checks this layout.
    @inlinable
    static func storedValue<Value>(at element: UnsafePointer<SnapshotValue>, as _: Value.Type) -> Value? {
        storedValue(at: element, as: Value.self, tag: valueCaseTag)
    }

    /// ``storedValue(at:as:)`` with ``valueCaseTag`` at hand (an entity layout keeps a copy):
    /// reading the static costs a call that makes the caller retain the row around the read.
    @inlinable @inline(__always)
    static func storedValue<Value>(at element: UnsafePointer<SnapshotValue>, as _: Value.Type,
                                   tag: (offset: Int, byte: UInt8)?) -> Value? {
        guard Value.self == String.self || Value.self == Date.self || Value.self == Int64.self
                || Value.self == Int32.self || Value.self == Int16.self || Value.self == Double.self
                || Value.self == Float.self || Value.self == Bool.self,
              storedType(at: element, tag: tag) == Value.self else { return nil }
        return UnsafeRawPointer(element).load(as: Value.self)
    }

    /// The dynamic type of the value a row holds at `element`, read in place, when the element
    /// is a `.value` (see ``storedValue(at:as:)``); nil otherwise, or when the layout is unknown.
    @inlinable
    static func storedType(at element: UnsafePointer<SnapshotValue>) -> Any.Type? {
        storedType(at: element, tag: valueCaseTag)
    }

    /// ``storedType(at:)`` with ``valueCaseTag`` at hand.
    @inlinable @inline(__always)
    static func storedType(at element: UnsafePointer<SnapshotValue>, tag: (offset: Int, byte: UInt8)?) -> Any.Type? {
        guard let tag else { return nil }
        let raw = UnsafeRawPointer(element)
        guard raw.load(fromByteOffset: tag.offset, as: UInt8.self) == tag.byte else { return nil }
        return unsafeBitCast(raw.load(fromByteOffset: 3 * MemoryLayout<Int>.size, as: UnsafeRawPointer.self), to: Any.Type.self)
    }

    /// Where a `SnapshotValue` keeps its case and the byte there for `.value`, found once by
    /// looking at values of each case an attribute slot holds: the enum's extra tag byte, after
    /// the largest payload. Nil (no in-place reads) unless that byte tells `.value` apart.
    @usableFromInline
    static let valueCaseTag: (offset: Int, byte: UInt8)? = {
        let size = MemoryLayout<SnapshotValue>.size
        guard size > MemoryLayout<any Hashable & Sendable>.size else { return nil }
        func tag(_ value: SnapshotValue) -> UInt8 { withUnsafeBytes(of: value) { $0[size - 1] } }
        let values: [SnapshotValue] = [.value("text"), .value(String(repeating: "long text ", count: 8)), .value(Int64(-1)),
                                       .value(Int32(0)), .value(0.5), .value(true), .value(Date(timeIntervalSinceReferenceDate: 0))]
        let tags = Set(values.map(tag))
        guard tags.count == 1, let byte = tags.first, tag(.null) != byte, tag(.unloaded) != byte else { return nil }
        return (size - 1, byte)
    }()

    /// `box` as a `Value`: unboxed when it is exactly one, else cast (`as?`).
    @inlinable
    static func cast<Value>(_ box: Any, as _: Value.Type) -> Value? {
        unbox(box, as: Value.self) ?? (box as? Value)
    }

    /// `box` as a `Value`: unboxed when it is exactly one, else cast (`as?`).
    @inlinable
    static func cast<Value>(_ box: any Hashable & Sendable, as _: Value.Type) -> Value? {
        unbox(box, as: Value.self) ?? (box as? Value)
    }

    /// The dynamic type of the value at `slot`, nil when it is nil, read without copying the
    /// value: an `Any` is a three-word buffer followed by its type's metadata (Swift's stable
    /// existential layout), and `nil` is a zero metadata word. A test checks this layout.
    @inline(__always)
    static func dynamicType(at slot: UnsafePointer<Any?>) -> Any.Type? {
        let metadata = UnsafeRawPointer(slot).load(fromByteOffset: 3 * MemoryLayout<Int>.size, as: UnsafeRawPointer?.self)
        return metadata.map { unsafeBitCast($0, to: Any.Type.self) }
    }
}
