using System.CommandLine;

namespace PerfLab.Cli;

// Placeholder until the sut verb lands.
public static class SutCommand
{
    public static Command Create()
    {
        var command = new Command("sut", "(not built yet)");
        command.SetAction(_ => { Console.Error.WriteLine("perflab sut is not built yet."); return (int)ExitCode.Failed; });
        return command;
    }
}
