using PerfLab.Tests.Architecture.IlSamples.Used;

namespace PerfLab.Tests.Architecture.IlSamples.Users;

internal sealed class BodyUser
{
    public static string Describe() => new ByBody().ToString()!;
}

internal sealed class LambdaUser
{
    public static Func<object> Make() => () => new ByLambda();
}

internal sealed class AsyncUser
{
    public static async Task<object> MakeAsync()
    {
        await Task.Yield();
        return new ByAsync();
    }
}

internal sealed class GenericUser
{
    public static int Count(IEnumerable<object> items) => items.OfType<ByGenericArgument>().Count();
}

[Marker(typeof(ByAttributeArgument))]
internal sealed class AttributeUser;

internal sealed class CatchUser
{
    public static bool Try(Action action)
    {
        try
        {
            action();
            return true;
        }
        catch (ByCatch)
        {
            return false;
        }
    }
}

internal sealed class BaseUser : ByBase;

internal sealed class StaticFieldUser
{
    public static int Read() => ByStaticField.Value;
}
