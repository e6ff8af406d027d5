// NSExpression as Xcode archives it in a mapping model (`valueexpressiondata`): a keyed archive
// (a property list of `$objects` referring to each other by UID) whose objects are NSExpression
// subclasses, each with its NSExpressionType and the keys of that type. Foundation on Linux has
// no NSExpression, and its keyed unarchiver traps on some damaged archives, so the property
// list is walked here: every reference checked, cycles and depth bounded, and what cannot be
// read is an error, never a crash.
import Foundation

enum ArchivedExpression {
    /// The expression archived in `data`; throws a message naming what cannot be read.
    static func expression(from data: Data) throws(Failure) -> Expression {
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: data, format: nil)
        } catch {
            throw Failure(message: "the value expression is not a property list (a keyed archive)")
        }
        guard let archive = plist as? [String: Any], let objects = archive["$objects"] as? [Any],
              let top = archive["$top"] as? [String: Any], let root = top["root"] else {
            throw Failure(message: "the value expression is not a keyed archive ($objects and $top.root)")
        }
        var reader = Reader(objects: objects)
        return try reader.expression(root, depth: 0)
    }

    struct Failure: Error {
        var message: String
    }

    /// Walks an archive's objects.
    struct Reader {
        let objects: [Any]
        /// The objects being read, to refuse an expression that contains itself.
        var open: Set<Int> = []

        static let maximumDepth = 64

        /// The index a UID reference (`CF$UID`) holds.
        func index(_ reference: Any?) throws(Failure) -> Int {
            guard let reference, String(describing: type(of: reference)).contains("KeyedArchiverUID"),
                  let child = Mirror(reflecting: reference).children.first(where: { $0.label == "value" }),
                  let value = (child.value as? UInt32).map(Int.init) ?? (child.value as? Int) else {
                throw Failure(message: "the value expression's archive holds a reference that is not a UID")
            }
            guard objects.indices.contains(value) else {
                throw Failure(message: "the value expression's archive refers to object \(value) of \(objects.count)")
            }
            return value
        }

        /// The object a reference refers to; nil for `$null`.
        func object(_ reference: Any?) throws(Failure) -> Any? {
            let object = objects[try index(reference)]
            if let string = object as? String, string == "$null" { return nil }
            return object
        }

        /// The class name of an archived object (its `$class` description's `$classname`).
        func className(of object: [AnyHashable: Any]) throws(Failure) -> String {
            guard let description = try self.object(object["$class"]) as? [AnyHashable: Any],
                  let name = description["$classname"] as? String else {
                throw Failure(message: "an object of the value expression's archive has no class description")
            }
            return name
        }

        /// A string an object's key refers to (an NSString, or an NSMutableString's `NS.string`).
        func string(_ object: [AnyHashable: Any], _ key: String) throws(Failure) -> String? {
            guard object[key] != nil else { return nil }
            let value = try self.object(object[key])
            if let string = value as? String { return string }
            if let mutable = value as? [AnyHashable: Any], let string = mutable["NS.string"] as? String { return string }
            throw Failure(message: "the value expression's \(key) is not a string")
        }

        /// The expression a reference refers to.
        mutating func expression(_ reference: Any?, depth: Int) throws(Failure) -> Expression {
            guard depth < Self.maximumDepth else { throw Failure(message: "the value expression is nested too deeply") }
            let index = try self.index(reference)
            guard open.insert(index).inserted else { throw Failure(message: "the value expression contains itself") }
            defer { open.remove(index) }
            guard let object = objects[index] as? [AnyHashable: Any] else {
                throw Failure(message: "the value expression's archive holds a \(type(of: objects[index])) where an expression belongs")
            }
            let className = try className(of: object)
            guard ArchivedExpression.classNames.contains(className) else {
                throw Failure(message: "the value expression's archive holds an \(className), not an NSExpression")
            }
            guard let type = (object["NSExpressionType"] as? NSNumber)?.intValue ?? (object["NSExpressionType"] as? Int) else {
                throw Failure(message: "an expression of the archive has no NSExpressionType")
            }
            switch type {
            case 0:
                return .constant(try constant(object["NSConstantValue"]))
            case 1:
                return .evaluatedObject
            case 2:
                guard let name = try string(object, "NSVariable") else { throw Failure(message: "a variable expression has no name") }
                return .variable(name)
            case 3, 10:
                guard let path = try string(object, "NSKeyPath") else { throw Failure(message: "a key path expression has no key path") }
                return .keyPath(path)
            case 4:
                return try function(object, depth: depth)
            case 14:
                return .aggregate(try list(object["NSCollection"] ?? object["NSArguments"], depth: depth))
            default:
                throw Failure(message: "the value expression holds an NSExpression of type \(type), which is not read here (constants, variables, key paths, functions and aggregates are)")
            }
        }

        /// A constant's value: a string, a number (a Boolean only when archived as one), a date,
        /// data, or nil.
        func constant(_ reference: Any?) throws(Failure) -> ConstantValue {
            guard reference != nil, let value = try object(reference) else { return .null }
            switch value {
            case let flag as Bool where type(of: value) == Bool.self:
                return .bool(flag)
            case let number as NSNumber:
                let kind = String(cString: number.objCType)
                return kind == "d" || kind == "f" ? .double(number.doubleValue) : .integer(number.int64Value)
            case let string as String:
                return .string(string)
            case let data as Data:
                return .data(data)
            case let dictionary as [AnyHashable: Any]:
                if let time = (dictionary["NS.time"] as? NSNumber)?.doubleValue {
                    return .date(Date(timeIntervalSinceReferenceDate: time))
                }
                if let string = dictionary["NS.string"] as? String { return .string(string) }
                throw Failure(message: "the value expression holds a constant of class \((try? className(of: dictionary)) ?? "unknown"), which is not read here")
            default:
                throw Failure(message: "the value expression holds a constant of an unknown kind")
            }
        }

        /// The expressions of an NSArray reference (`NS.objects`).
        mutating func list(_ reference: Any?, depth: Int) throws(Failure) -> [Expression] {
            guard reference != nil, let array = try object(reference) else { return [] }
            guard let dictionary = array as? [AnyHashable: Any], let items = dictionary["NS.objects"] as? [Any] else {
                throw Failure(message: "the arguments of an expression are not an array")
            }
            var expressions: [Expression] = []
            for item in items { expressions.append(try expression(item, depth: depth + 1)) }
            return expressions
        }

        /// A function: `valueForKeyPath:` applied to a variable or the object (Xcode's
        /// `$source.a.b`), a method called on an operand (`FUNCTION($manager, "selector:", ...)`,
        /// `FUNCTION("text", "uppercaseString")`), or a built-in function (`now()`, `add:to:`),
        /// whose operand is Foundation's utility class rather than a value.
        mutating func function(_ object: [AnyHashable: Any], depth: Int) throws(Failure) -> Expression {
            guard let selector = try string(object, "NSSelectorName") else { throw Failure(message: "a function expression has no selector") }
            let arguments = try list(object["NSArguments"], depth: depth)
            guard object["NSOperand"] != nil, let operandObject = try self.object(object["NSOperand"]) as? [AnyHashable: Any] else {
                return .function(selector, arguments)
            }
            if (operandObject["NSExpressionType"] as? NSNumber)?.intValue == 0 {
                // A constant operand that is a value is a receiver; Foundation's utility class
                // (archived as a class reference, or not at all) marks a built-in.
                let value = operandObject["NSConstantValue"] == nil ? nil : try self.object(operandObject["NSConstantValue"])
                let isValue = value is String || value is NSNumber || value is Bool
                    || ((value as? [AnyHashable: Any]).map { $0["NS.string"] != nil || $0["NS.time"] != nil } ?? false)
                if !isValue { return .function(selector, arguments) }
            }
            let receiver = try expression(object["NSOperand"], depth: depth + 1)
            if selector == "valueForKeyPath:" || selector == "valueForKey:", arguments.count == 1, case .keyPath(let path) = arguments[0] {
                if case .evaluatedObject = receiver { return .keyPath(path) }
                return .member(receiver, path)
            }
            return .method(receiver, selector, arguments)
        }
    }

    /// The NSExpression classes an archive may name.
    static let classNames: Set<String> = [
        "NSExpression", "NSConstantValueExpression", "NSSelfExpression", "NSVariableExpression",
        "NSKeyPathExpression", "NSFunctionExpression", "NSKeyPathSpecifierExpression", "NSAggregateExpression",
        "NSTernaryExpression", "NSSubqueryExpression", "NSSetExpression", "NSAnyKeyExpression", "NSBlockExpression",
        "NSVariableAssignmentExpression",
    ]
}
