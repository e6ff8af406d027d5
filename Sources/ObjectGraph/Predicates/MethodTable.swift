// The methods `FUNCTION(receiver, "selector:", args...)` can call. Foundation dispatches to any
// Objective-C method; here a table maps selector names to Swift closures, with the common
// NSString and NSNumber methods built in and `register` for the application's own.
import Foundation

/// The methods available to `FUNCTION(receiver, "selector", arguments...)` expressions.
///
/// ```swift
/// MethodTable.register("reversed") { receiver, _ in
///     (receiver as? String).map { String($0.reversed()) }
/// }
/// try Predicate(format: "FUNCTION(name, 'reversed') == 'adA'")
/// ```
public enum MethodTable {
    /// A method: the receiver and the evaluated arguments in, the result out.
    public typealias Method = @Sendable (_ receiver: Any?, _ arguments: [Any?]) throws -> Any?

    private static let lock = NSLock()
    nonisolated(unsafe) private static var methods: [String: Method] = builtins

    /// Makes `selector` callable from FUNCTION expressions, replacing any method of that name.
    public static func register(_ selector: String, _ method: @escaping Method) {
        lock.lock()
        defer { lock.unlock() }
        methods[selector] = method
    }

    /// Calls `selector` on `receiver`: the receiver's own method when it is a ``MethodReceiver``
    /// that has one, else the table's; throws for an unknown selector or bad arguments.
    public static func call(_ selector: String, on receiver: Any?, _ arguments: [Any?]) throws -> Any? {
        if let receiver = receiver as? any MethodReceiver, let method = receiver.method(forSelector: selector) {
            return try method(arguments.map(KeyValueAccess.normalized))
        }
        lock.lock()
        let method = methods[selector]
        lock.unlock()
        guard let method else {
            throw PredicateError(.evaluation, "unknown method \"\(selector)\" in FUNCTION")
        }
        return try method(KeyValueAccess.normalized(receiver), arguments.map(KeyValueAccess.normalized))
    }

    private static func string(_ value: Any?, _ selector: String) throws -> String {
        guard let value, let s = ValueComparison.string(value) else {
            throw PredicateError(.evaluation, "\(selector) needs a string, got \(ValueComparison.describe(value))")
        }
        return s
    }

    private static func number(_ value: Any?, _ selector: String) throws -> Number {
        guard let value, let n = Number(value) else {
            throw PredicateError(.evaluation, "\(selector) needs a number, got \(ValueComparison.describe(value))")
        }
        return n
    }

    private static func argument(_ arguments: [Any?], _ index: Int, _ selector: String) throws -> Any? {
        guard index < arguments.count else {
            throw PredicateError(.evaluation, "\(selector) needs \(index + 1) argument(s)")
        }
        return arguments[index]
    }

    private static let builtins: [String: Method] = [
        "valueForKey:": { r, a in
            try KeyValueAccess.value(of: r, forKey: string(argument(a, 0, "valueForKey:"), "valueForKey:"))
        },
        "valueForKeyPath:": { r, a in
            try KeyValueAccess.value(of: r, forKeyPath: string(argument(a, 0, "valueForKeyPath:"), "valueForKeyPath:"))
        },
        "uppercase": { r, _ in try string(r, "uppercase").uppercased() },
        "uppercaseString": { r, _ in try string(r, "uppercaseString").uppercased() },
        "lowercase": { r, _ in try string(r, "lowercase").lowercased() },
        "lowercaseString": { r, _ in try string(r, "lowercaseString").lowercased() },
        "capitalizedString": { r, _ in try string(r, "capitalizedString").capitalized },
        "length": { r, _ in try string(r, "length").utf16.count },
        "description": { r, _ in r.map { ValueComparison.string($0) ?? String(describing: $0) } },
        "lastPathComponent": { r, _ in (try string(r, "lastPathComponent") as NSString).lastPathComponent },
        "stringByAppendingString:": { r, a in
            try string(r, "stringByAppendingString:") + string(argument(a, 0, "stringByAppendingString:"), "stringByAppendingString:")
        },
        "substringFromIndex:": { r, a in
            let s = try string(r, "substringFromIndex:") as NSString
            guard let i = try number(argument(a, 0, "substringFromIndex:"), "substringFromIndex:").integerValue,
                i >= 0, i <= s.length
            else { throw PredicateError(.evaluation, "substringFromIndex: index out of range") }
            return s.substring(from: Int(i))
        },
        "substringToIndex:": { r, a in
            let s = try string(r, "substringToIndex:") as NSString
            guard let i = try number(argument(a, 0, "substringToIndex:"), "substringToIndex:").integerValue,
                i >= 0, i <= s.length
            else { throw PredicateError(.evaluation, "substringToIndex: index out of range") }
            return s.substring(to: Int(i))
        },
        "stringByReplacingOccurrencesOfString:withString:": { r, a in
            let selector = "stringByReplacingOccurrencesOfString:withString:"
            let target = try string(argument(a, 0, selector), selector)
            let replacement = try string(argument(a, 1, selector), selector)
            let receiver = try string(r, selector)
            // Swift's own replacing: Foundation's traps on Linux for strings holding NULs.
            return target.isEmpty ? receiver : receiver.replacing(target, with: replacement)
        },
        "pow:": { r, a in
            try BuiltinFunction.evaluate("raise:toPower:", [r, argument(a, 0, "pow:")])
        },
    ]
}

/// An object with methods of its own for `FUNCTION(receiver, "selector:", ...)` expressions,
/// as an Objective-C object answers any selector it implements: a ``MigrationManager``
/// (`FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", ...)`) or
/// an ``EntityMigrationPolicy`` (`FUNCTION($entityPolicy, "mySelector:", ...)`).
public protocol MethodReceiver: AnyObject {
    /// The method `selector` names, taking the evaluated arguments; nil when the object has none
    /// of that name (the ``MethodTable``'s is called then).
    func method(forSelector selector: String) -> (([Any?]) throws -> Any?)?
}
