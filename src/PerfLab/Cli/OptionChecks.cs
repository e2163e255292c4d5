using System.CommandLine;
using System.CommandLine.Parsing;
using System.Globalization;
using PerfLab.Common;

namespace PerfLab.Cli;

public static class OptionChecks
{
    /// <summary>
    /// Adds a check on the option's value. It runs only on values that parsed: System.CommandLine reports a value of
    /// the wrong type itself, and reading such a value in a validator throws.
    /// </summary>
    public static Option<T> Check<T>(this Option<T> option, Func<T, bool> isValid, Func<T, string> message)
    {
        option.Validators.Add(result =>
        {
            T value;
            try
            {
                value = result.GetValueOrDefault<T>()!;
            }
            catch (InvalidOperationException)
            {
                return;
            }
            if (!isValid(value))
            {
                result.AddError(message(value));
            }
        });
        return option;
    }

    public static Option<T> Check<T>(this Option<T> option, Func<T, bool> isValid, string message) =>
        option.Check(isValid, _ => message);

    /// <summary>
    /// A custom parser's reading of a <see cref="DurationText"/> duration (30s, 500ms, 2m, 1h) within
    /// [<paramref name="min"/>, <paramref name="max"/>]. With <paramref name="unitRequired"/> a bare number other than 0
    /// is refused: it could mean seconds or milliseconds.
    /// </summary>
    public static TimeSpan? Duration(ArgumentResult result, string option, TimeSpan min, TimeSpan max, bool unitRequired = false)
    {
        var text = result.Tokens.Count > 0 ? result.Tokens[0].Value.Trim() : "";
        if (!DurationText.TryParse(text, out var duration))
        {
            result.AddError($"{option}: '{text}' is not a duration (use 30s, 500ms, 2m or 1h).");
            return null;
        }
        if (unitRequired && duration != TimeSpan.Zero && double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out _))
        {
            result.AddError($"{option}: '{text}' needs a unit (e.g. {text}ms or {text}s).");
            return null;
        }
        if (duration < min || duration > max)
        {
            result.AddError(string.Create(CultureInfo.InvariantCulture, $"{option} must be between {min.TotalSeconds:0.###}s "
                + $"and {max.TotalSeconds:0}s, not '{text}'."));
            return null;
        }
        return duration;
    }
}
