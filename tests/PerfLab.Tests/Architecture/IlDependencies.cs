using Mono.Cecil;

namespace PerfLab.Tests.Architecture;

/// <summary>
/// Which of an assembly's own types each of its types uses, read from IL: base types, interfaces, fields, properties,
/// events, method signatures, generic arguments and constraints, attributes, locals, catch clauses and every
/// instruction operand. A compiler-generated nested type (lambda closure, async state machine) counts as its outer type.
/// </summary>
internal sealed class IlDependencies
{
    private readonly ModuleDefinition _module;
    private readonly HashSet<TypeDependency> _found = [];
    private TypeDefinition _current = null!;

    private IlDependencies(ModuleDefinition module) => _module = module;

    public static IReadOnlyCollection<TypeDependency> Read(string assemblyPath)
    {
        using var module = ModuleDefinition.ReadModule(assemblyPath);
        var reader = new IlDependencies(module);
        foreach (var type in module.GetTypes())
        {
            reader.ReadType(type);
        }
        return reader._found;
    }

    private void ReadType(TypeDefinition type)
    {
        _current = type;
        Use(type.BaseType);
        type.Interfaces.ToList().ForEach(i => { Use(i.InterfaceType); Use(i.CustomAttributes); });
        Use(type.CustomAttributes);
        Use(type.GenericParameters);
        foreach (var field in type.Fields)
        {
            Use(field.FieldType);
            Use(field.CustomAttributes);
        }
        foreach (var property in type.Properties)
        {
            Use(property.PropertyType);
            Use(property.CustomAttributes);
        }
        foreach (var e in type.Events)
        {
            Use(e.EventType);
            Use(e.CustomAttributes);
        }
        foreach (var method in type.Methods)
        {
            ReadMethod(method);
        }
    }

    private void ReadMethod(MethodDefinition method)
    {
        Use(method.ReturnType);
        Use(method.MethodReturnType.CustomAttributes);
        Use(method.CustomAttributes);
        Use(method.GenericParameters);
        foreach (var parameter in method.Parameters)
        {
            Use(parameter.ParameterType);
            Use(parameter.CustomAttributes);
        }
        if (!method.HasBody)
        {
            return;
        }
        method.Body.Variables.ToList().ForEach(v => Use(v.VariableType));
        method.Body.ExceptionHandlers.ToList().ForEach(h => Use(h.CatchType));
        foreach (var instruction in method.Body.Instructions)
        {
            switch (instruction.Operand)
            {
                case TypeReference t: Use(t); break;
                case MethodReference m: Use(m); break;
                case FieldReference f: Use(f.DeclaringType); Use(f.FieldType); break;
                case CallSite c: Use(c.ReturnType); c.Parameters.ToList().ForEach(p => Use(p.ParameterType)); break;
            }
        }
    }

    private void Use(MethodReference method)
    {
        Use(method.DeclaringType);
        Use(method.ReturnType);
        method.Parameters.ToList().ForEach(p => Use(p.ParameterType));
        if (method is GenericInstanceMethod generic)
        {
            generic.GenericArguments.ToList().ForEach(Use);
        }
    }

    private void Use(IEnumerable<CustomAttribute> attributes)
    {
        foreach (var attribute in attributes)
        {
            Use(attribute.AttributeType);
            foreach (var argument in attribute.ConstructorArguments.Concat(attribute.Properties.Select(p => p.Argument)).Concat(attribute.Fields.Select(f => f.Argument)))
            {
                Use(argument);
            }
        }
    }

    // typeof(X) in an attribute argument is a use of X too, also inside a Type[] or an object-typed argument.
    private void Use(CustomAttributeArgument argument)
    {
        Use(argument.Type);
        switch (argument.Value)
        {
            case TypeReference t: Use(t); break;
            case CustomAttributeArgument boxed: Use(boxed); break;
            case CustomAttributeArgument[] array: array.ToList().ForEach(Use); break;
        }
    }

    private void Use(IEnumerable<GenericParameter> parameters)
    {
        foreach (var parameter in parameters)
        {
            parameter.Constraints.ToList().ForEach(c => Use(c.ConstraintType));
            Use(parameter.CustomAttributes);
        }
    }

    private void Use(TypeReference? type)
    {
        switch (type)
        {
            case null or GenericParameter:
                return;
            case GenericInstanceType generic:
                Use(generic.ElementType);
                generic.GenericArguments.ToList().ForEach(Use);
                return;
            case FunctionPointerType pointer:
                Use(pointer.ReturnType);
                pointer.Parameters.ToList().ForEach(p => Use(p.ParameterType));
                return;
            case IModifierType modified:
                Use(modified.ModifierType);
                Use(modified.ElementType);
                return;
            case TypeSpecification spec: // arrays, by-refs, pointers, pinned
                Use(spec.ElementType);
                return;
        }
        if (!IsOurs(type))
        {
            return;
        }
        var from = Outer(_current);
        var to = Outer(type);
        // Types the compiler or a source generator adds outside our namespaces (<Module>, embedded attributes,
        // generated regexes) belong to no folder.
        if (IsPerfLab(from.Namespace) && IsPerfLab(to.Namespace))
        {
            _found.Add(new TypeDependency(from.FullName, from.Namespace, to.FullName, to.Namespace));
        }
    }

    private static bool IsPerfLab(string ns) => ns == "PerfLab" || ns.StartsWith("PerfLab.", StringComparison.Ordinal);

    private bool IsOurs(TypeReference type) =>
        type is TypeDefinition || type.Scope is ModuleDefinition scope && scope == _module;

    // Nested types carry no namespace of their own in metadata: the outermost declaring type has it. So a
    // compiler-generated closure or async state machine is charged to the class that wrote the lambda or the method.
    private static TypeReference Outer(TypeReference type)
    {
        while (type.DeclaringType is { } outer)
        {
            type = outer;
        }
        return type;
    }
}
