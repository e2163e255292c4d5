using System.Globalization;

namespace PerfLab.Sut.Hosting;

/// <summary>Reads integer query parameters of the minimal endpoints, answering 400 ProblemDetails that name them.</summary>
public static class QueryParameters
{
    public static bool TryGetInt(HttpContext context, string name, int min, int max, int fallback, out int value,
        out IResult problem)
    {
        problem = TypedResults.Ok();
        var raw = context.Request.Query[name];
        if (raw.Count == 0 || string.IsNullOrEmpty(raw[0]))
        {
            value = fallback;
            return true;
        }
        if (raw.Count == 1 && int.TryParse(raw[0], NumberStyles.Integer, CultureInfo.InvariantCulture, out value)
            && value >= min && value <= max)
        {
            return true;
        }
        value = fallback;
        problem = TypedResults.ValidationProblem(
            new Dictionary<string, string[]>
            {
                [name] = [$"The value '{raw}' is not valid for {name}; expected a whole number from {min} to {max}."],
            },
            title: $"Invalid query parameter '{name}'.");
        return false;
    }
}
