// NSExpression as Xcode archives it in a mapping model (`valueexpressiondata`): a keyed archive
// whose objects are NSExpression subclasses, each with its NSExpressionType and the keys of that
// type. Foundation on Linux has no NSExpression; its keyed unarchiver reads the archive into
// ArchivedExpressionNode objects, which become this framework's `Expression`.
import Foundation

enum ArchivedExpression {
    /// The expression archived in `data`; throws a message naming what cannot be read.
    static func expression(from data: Data) throws(Failure) -> Expression {
        let unarchiver: NSKeyedUnarchiver
        do {
            unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        } catch {
            throw Failure(message: "the value expression is not a keyed archive: \(error)")
        }
        unarchiver.requiresSecureCoding = false
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        for name in classNames { unarchiver.setClass(ArchivedExpressionNode.self, forClassName: name) }
        let root = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey)
        unarchiver.finishDecoding()
        if let error = unarchiver.error {
            throw Failure(message: "the value expression's archive cannot be read: \(error)")
        }
        guard let node = root as? ArchivedExpressionNode else {
            throw Failure(message: "the value expression's archive holds no expression")
        }
        return try node.expression()
    }

    struct Failure: Error {
        var message: String
    }

    /// The NSExpression classes an archive names.
    static let classNames = [
        "NSExpression", "NSConstantValueExpression", "NSSelfExpression", "NSVariableExpression",
        "NSKeyPathExpression", "NSFunctionExpression", "NSKeyPathSpecifierExpression", "NSAggregateExpression",
        "NSTernaryExpression", "NSSubqueryExpression", "NSSetExpression", "NSAnyKeyExpression", "NSBlockExpression",
        "NSVariableAssignmentExpression",
    ]
}

/// One archived NSExpression, as the unarchiver reads it: its type and the values of its keys.
final class ArchivedExpressionNode: NSObject, NSCoding {
    /// NSExpressionType: 0 constant, 1 the evaluated object, 2 variable, 3 key path, 4 function,
    /// 10 a key path argument, 14 aggregate.
    let type: Int
    let constant: Any?
    let name: String?
    let keyPath: String?
    let selector: String?
    let operand: ArchivedExpressionNode?
    let arguments: [Any]

    init?(coder: NSCoder) {
        // Foundation's unarchiver fails the whole archive on a key an object lacks: ask first.
        func object(_ key: String) -> Any? { coder.containsValue(forKey: key) ? coder.decodeObject(forKey: key) : nil }
        type = coder.containsValue(forKey: "NSExpressionType") ? coder.decodeInteger(forKey: "NSExpressionType") : -1
        constant = object("NSConstantValue")
        name = object("NSVariable") as? String
        keyPath = object("NSKeyPath") as? String
        selector = object("NSSelectorName") as? String
        operand = object("NSOperand") as? ArchivedExpressionNode
        let list = object("NSArguments") ?? object("NSCollection")
        arguments = (list as? NSArray).map { $0.map { $0 } } ?? (list as? [Any]) ?? []
        super.init()
    }

    func encode(with coder: NSCoder) {}

    typealias Failure = ArchivedExpression.Failure

    func expression() throws(Failure) -> Expression {
        switch type {
        case 0:
            do {
                return .constant(try ConstantValue(any: constant))
            } catch {
                throw Failure(message: "the value expression holds a constant of an unknown kind (\(Swift.type(of: constant as Any)))")
            }
        case 1:
            return .evaluatedObject
        case 2:
            guard let name else { throw Failure(message: "a variable expression has no name") }
            return .variable(name)
        case 3, 10:
            guard let keyPath else { throw Failure(message: "a key path expression has no key path") }
            return .keyPath(keyPath)
        case 4:
            return try function()
        case 14:
            return .aggregate(try argumentExpressions())
        default:
            throw Failure(message: "the value expression holds an NSExpression of type \(type), which is not read here (constants, variables, key paths, functions and aggregates are)")
        }
    }

    private func argumentExpressions() throws(Failure) -> [Expression] {
        var expressions: [Expression] = []
        for argument in arguments {
            guard let node = argument as? ArchivedExpressionNode else {
                throw Failure(message: "an argument of the value expression is not an expression")
            }
            expressions.append(try node.expression())
        }
        return expressions
    }

    /// A function: `valueForKeyPath:` applied to a variable or the object (Xcode's `$source.a.b`),
    /// a method called on an operand (`FUNCTION($manager, "selector:", ...)`), or a built-in
    /// function (`sum:`), whose operand is Foundation's utility class.
    private func function() throws(Failure) -> Expression {
        guard let selector else { throw Failure(message: "a function expression has no selector") }
        let arguments = try argumentExpressions()
        guard let operand, operand.type != 0 else { return .function(selector, arguments) }
        let receiver = try operand.expression()
        if selector == "valueForKeyPath:" || selector == "valueForKey:", arguments.count == 1,
           case .keyPath(let path) = arguments[0] {
            if case .evaluatedObject = receiver { return .keyPath(path) }
            return .member(receiver, path)
        }
        return .method(receiver, selector, arguments)
    }
}
