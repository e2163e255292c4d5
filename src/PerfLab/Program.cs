using PerfLab.Cli;

return await PerfLabCli.RunAsync(args);
