using System.CommandLine;
using PerfLab.Common;

namespace PerfLab.Cli;

public static class PerfLabCli
{
    public static RootCommand CreateRoot()
    {
        var root = new RootCommand("PerfLab: measure what an ASP.NET Core performance recommendation is worth.");
        root.Subcommands.Add(RunCommand.Create());
        root.Subcommands.Add(ListCommand.Create());
        root.Subcommands.Add(ReportCommand.Create());
        root.Subcommands.Add(CompareCommand.Create());
        root.Subcommands.Add(CompareResultsCommand.Create());
        root.Subcommands.Add(DbCommand.Create());
        root.Subcommands.Add(SutCommand.Create());
        root.Subcommands.Add(LoadCommand.Create());
        root.Subcommands.Add(CapacityCommand.Create());
        root.Subcommands.Add(CountersCommand.Create());
        root.Subcommands.Add(MicroCommand.Create());
        root.Subcommands.Add(TraceCommand.Create());
        root.Subcommands.Add(ProxyCommand.Create());
        root.Subcommands.Add(HostsCommand.Create());
        root.Subcommands.Add(HostCommand.Create());
        root.Subcommands.Add(HistoryCommand.Create());
        return root;
    }

    /// <summary>System.CommandLine names CLR types in conversion errors; say what the user should type instead.</summary>
    private static string Friendly(string message)
    {
        var match = System.Text.RegularExpressions.Regex.Match(message,
            @"^Cannot parse argument '(?<value>.*)' for (?:option|argument) '(?<name>[^']+)' as expected type '(?<type>[^']+)'");
        if (!match.Success)
        {
            return message;
        }
        var type = match.Groups["type"].Value;
        var expected = type.Contains("Int32", StringComparison.Ordinal) || type.Contains("Int64", StringComparison.Ordinal)
            ? "a whole number"
            : type.Contains("Double", StringComparison.Ordinal) ? "a number"
            : type.Contains("Boolean", StringComparison.Ordinal) ? "true or false"
            : "a value of another form";
        return $"'{match.Groups["value"].Value}' is not valid for {match.Groups["name"].Value}: expected {expected}.";
    }

    public static async Task<int> RunAsync(string[] args)
    {
        var parseResult = CreateRoot().Parse(args);
        if (parseResult.Errors.Count > 0)
        {
            foreach (var error in parseResult.Errors)
            {
                Console.Error.WriteLine($"error: {Friendly(error.Message)}");
            }
            var path = new List<string>();
            for (var result = parseResult.CommandResult; result is not null;
                result = result.Parent as System.CommandLine.Parsing.CommandResult)
            {
                path.Insert(0, result.Command.Name);
            }
            path[0] = "perflab";
            Console.Error.WriteLine($"See '{string.Join(' ', path)} --help'.");
            return (int)ExitCode.Usage;
        }

        try
        {
            // Ctrl+C cancels the verb's token; System.CommandLine then waits ShutdownLimit before it returns 130 on its own.
            return await parseResult.InvokeAsync(new InvocationConfiguration
            {
                EnableDefaultExceptionHandler = false,
                ProcessTerminationTimeout = ShutdownLimit.For(parseResult),
            });
        }
        catch (PerfLabException ex)
        {
            Console.Error.WriteLine($"error: {ex.Message}");
            return (int)ex.ExitCode;
        }
        catch (OperationCanceledException)
        {
            Console.Error.WriteLine("interrupted.");
            return (int)ExitCode.Interrupted;
        }
        catch (Exception ex)
        {
            // A bug, not a user mistake: one line on the console, the stack trace in a file for the bug report.
            var crashFile = Path.Combine(Path.GetTempPath(), $"perflab-crash-{DateTime.UtcNow:yyyyMMdd-HHmmss}.txt");
            File.WriteAllText(crashFile, ex.ToString());
            Console.Error.WriteLine($"error: perflab failed unexpectedly ({ex.GetType().Name}: {ex.Message}). Details: {crashFile}");
            return (int)ExitCode.Failed;
        }
    }
}
