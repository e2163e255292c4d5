namespace PerfLab.Tests.Architecture.IlSamples.Used;

// Types that IlSamples.Users reach in one way each, so IlDependenciesTests can tell which ways the reader sees.
internal sealed class ByBody;

internal sealed class ByLambda;

internal sealed class ByAsync;

internal sealed class ByGenericArgument;

internal sealed class ByAttributeArgument;

internal sealed class ByCatch : Exception;

internal class ByBase;

internal static class ByStaticField
{
    public static readonly int Value = Environment.ProcessorCount;
}

[AttributeUsage(AttributeTargets.Class)]
internal sealed class MarkerAttribute(Type type) : Attribute
{
    public Type Type { get; } = type;
}
