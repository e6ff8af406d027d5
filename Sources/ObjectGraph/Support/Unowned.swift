// A reference that copying does not retain, for descriptions (attributes, relationships,
// entities) inside per-entity plans that hot loops copy out of arrays: binding an enum case's
// class payload retains and releases it once per row and column otherwise. The plan's owner
// keeps the objects alive (a plan holds its entity, which holds its properties).

struct Unowned<Object: AnyObject> {
    private let reference: Unmanaged<Object>

    init(_ object: Object) {
        reference = .passUnretained(object)
    }

    /// The object, as a strong reference (which the caller's use may retain).
    var object: Object { reference.takeUnretainedValue() }

    /// Runs `body` with the object borrowed: no retain or release around the call.
    @inline(__always)
    func with<Result>(_ body: (Object) throws -> Result) rethrows -> Result {
        try reference._withUnsafeGuaranteedRef(body)
    }
}
