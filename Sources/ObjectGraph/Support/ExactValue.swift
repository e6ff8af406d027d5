// Taking a value of a known type out of an `Any` without a dynamic cast. `as?` goes through the
// runtime's general cast (unwrapping, bridging, protocol checks: a hundred-odd instructions);
// when the boxed value's type is exactly the one wanted, opening the box and comparing two type
// pointers is enough, and the value is copied out as that type.

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
