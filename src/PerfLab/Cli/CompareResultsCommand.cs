using System.CommandLine;

namespace PerfLab.Cli;

// Placeholder until the compare-results verb lands.
public static class CompareResultsCommand
{
    public static Command Create()
    {
        var command = new Command("compare-results", "(not built yet)");
        command.SetAction(_ => { Console.Error.WriteLine("perflab compare-results is not built yet."); return (int)ExitCode.Failed; });
        return command;
    }
}
