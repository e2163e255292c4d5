using System.CommandLine;

namespace PerfLab.Cli;

public static class PerfLabCli
{
    public static RootCommand CreateRoot()
    {
        var root = new RootCommand("PerfLab: measure what an ASP.NET Core performance recommendation is worth.");
        root.Subcommands.Add(RunCommand.Create());
        root.Subcommands.Add(ListCommand.Create());
        root.Subcommands.Add(ReportCommand.Create());
        root.Subcommands.Add(CompareResultsCommand.Create());
        root.Subcommands.Add(DbCommand.Create());
        root.Subcommands.Add(SutCommand.Create());
        root.Subcommands.Add(LoadCommand.Create());
        root.Subcommands.Add(CountersCommand.Create());
        root.Subcommands.Add(MicroCommand.Create());
        return root;
    }

    public static async Task<int> RunAsync(string[] args)
    {
        var parseResult = CreateRoot().Parse(args);
        if (parseResult.Errors.Count > 0)
        {
            foreach (var error in parseResult.Errors)
            {
                Console.Error.WriteLine($"error: {error.Message}");
            }
            var verb = parseResult.CommandResult.Command.Name;
            Console.Error.WriteLine($"See 'perflab {(verb == "perflab" ? "" : verb + " ")}--help'.");
            return (int)ExitCode.Usage;
        }

        try
        {
            return await parseResult.InvokeAsync(new InvocationConfiguration { EnableDefaultExceptionHandler = false });
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
