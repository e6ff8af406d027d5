// Objects that live as long as the process, marked so by the Swift runtime: retaining and
// releasing one then changes no reference count (no atomic operation). A frozen entity layout and
// the arrays it shares with every object of its entity (their initial slots and row, their change
// flags) are retained and released once per object made and freed; once the entity lives as long
// as the process (`EntityLifetime`), they do too, and those atomic operations on one shared cache
// line were a share of every fetch and insert.
import Foundation

enum Immortal {
    /// The runtime's entry point (`_swift_stdlib_immortalize`, which the standard library uses for
    /// its own static objects), looked up when first needed: where a runtime lacks it, objects
    /// stay as they are, which changes nothing but speed.
    private static let immortalize: (@convention(c) (UnsafeMutableRawPointer) -> Void)? = {
        // A null handle is RTLD_DEFAULT: the process's global symbols, the runtime's among them.
        guard let symbol = dlsym(nil, "_swift_stdlib_immortalize") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutableRawPointer) -> Void).self)
    }()

    /// Marks `object` as living as long as the process. Only for objects that do.
    static func mark(_ object: AnyObject) {
        immortalize?(Unmanaged.passUnretained(object).toOpaque())
    }

    /// Marks the storage of `array` (an array's storage is one object; the empty array's is
    /// static already).
    static func mark<Element>(storageOf array: [Element]) {
        guard array.capacity > 0 else { return }
        mark(unsafeBitCast(array, to: AnyObject.self))
    }
}
