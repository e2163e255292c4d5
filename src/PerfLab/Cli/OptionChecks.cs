using System.CommandLine;

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
}
