using System.CommandLine;

namespace PerfLab.Cli;

// Placeholder until the report verb lands.
public static class ReportCommand
{
    public static Command Create()
    {
        var command = new Command("report", "(not built yet)");
        command.SetAction(_ => { Console.Error.WriteLine("perflab report is not built yet."); return (int)ExitCode.Failed; });
        return command;
    }
}
