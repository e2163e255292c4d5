using System.Globalization;

namespace PerfLab.Sut.Hosting;

/// <summary>Reads numeric query parameters of the minimal endpoints, answering 400 ProblemDetails that name them.</summary>
public static class QueryParameters
{
    public static bool TryGetInt(HttpContext context, string name, int min, int max, int fallback, out int value,
        out IResult problem)
    {
        var ok = TryGet(context, name, min, max, fallback, "a whole number", NumberStyles.Integer, out var read, out problem);
        value = (int)read;
        return ok;
    }

    /// <summary>A decimal number with a point (invariant culture), e.g. <c>sigma=0.25</c>.</summary>
    public static bool TryGetDouble(HttpContext context, string name, double min, double max, double fallback, out double value,
        out IResult problem) =>
        TryGet(context, name, min, max, fallback, "a number", NumberStyles.Float, out value, out problem);

    private static bool TryGet(HttpContext context, string name, double min, double max, double fallback, string kind,
        NumberStyles styles, out double value, out IResult problem)
    {
        problem = TypedResults.Ok();
        var raw = context.Request.Query[name];
        if (raw.Count == 0 || string.IsNullOrEmpty(raw[0]))
        {
            value = fallback;
            return true;
        }
        if (raw.Count == 1 && double.TryParse(raw[0], styles, CultureInfo.InvariantCulture, out value)
            && double.IsFinite(value) && value >= min && value <= max)
        {
            return true;
        }
        value = fallback;
        var range = string.Create(CultureInfo.InvariantCulture, $"{min} to {max}");
        problem = TypedResults.ValidationProblem(
            new Dictionary<string, string[]>
            {
                [name] = [$"The value '{raw}' is not valid for {name}; expected {kind} from {range}."],
            },
            title: $"Invalid query parameter '{name}'.");
        return false;
    }
}
