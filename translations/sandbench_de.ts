<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>ReviewStyle</name>
    <message>
        <source>added</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>modified</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>deleted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>conflict</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sbui</name>
    <message>
        <source>none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sandbench-cli was not found</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot start %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sbui::ActivityModel</name>
    <message>
        <source>allowed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>denied</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2 by %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 failed: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>malformed proxy request: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 closed (%2 up, %3 down)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>approval #%1 asked: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>approval #%1 timed out: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>approval #%1 cancelled: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>approval #%1 %2 (%3, by %4)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>limit: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>exit %1 (signal %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>exit %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>policy: %1 rule %2 (%3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>error: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kind</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Decision</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Commands</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Network</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Approvals</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Limits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lifecycle and errors</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>command</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>network</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>approval</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>limit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>lifecycle</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>asked</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>timed out</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sbui::ActivityView</name>
    <message>
        <source>Commands</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Network</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Approvals</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Limits</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lifecycle</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Denied only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show only what was denied (also by a timeout)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search (Ctrl+F)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select an event to see all its fields.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sbui::ApprovalCard</name>
    <message>
        <source>Command #%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Connection #%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>… (%n more characters)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Copy command line</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy host and port</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>in %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>program %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>via %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>asked by %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Once</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This session</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Always (saved as a rule)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How long the answer holds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deny</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deny (Ctrl+Shift+N answers the focused or oldest request)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allow (Ctrl+Shift+Y answers the focused or oldest request)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the policy&apos;s default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This exact command</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Subcommand: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Subcommand</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Program: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Program, any arguments</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Host and port: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Host: %1 (any port)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>this host</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Domain: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Domain</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>expired, waiting for the supervisor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, then allowed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, then denied</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Allow sent, waiting…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deny sent, waiting…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>allowed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>denied</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>timed out, %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cancelled (the supervisor stopped), %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>always</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>this session</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>once</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 by %2 (%3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>another client</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; the rule was not saved: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>#%1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>#%1 %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What the answer covers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A once answer covers this request only</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sbui::ApprovalPanel</name>
    <message>
        <source>No pending approvals</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Approvals (%1 pending)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Approvals</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sbui::DiffModel</name>
    <message>
        <source>No newline at end of file</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sbui::DiffView</name>
    <message>
        <source>Side by side</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the old and the new version next to each other</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ignore white space</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Treat lines that differ only in white space as equal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Whole file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show every line, not only those around the changes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>added</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>deleted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>modified</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>symbolic link, %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select a changed file to see what the agent did to it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A special file (a FIFO, socket or device): it has no content to compare, and applying never copies it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Comparing…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>An empty file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only white space changed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The content is the same on both sides.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(too different to match line by line)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1, %2 (%3)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Too large to compare here.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Binary file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Before: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none, the file is new</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>After: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none, the file was deleted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not an image</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 × %3 px, %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Before</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>After</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sbui::FileReviewPanel</name>
    <message numerus="yes">
        <source>  … and %n more</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;Apply</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write the selected change (or the changes in the selected folder) into the real project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Discard</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Drop the agent&apos;s version of the selection; the project keeps its own</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Apply all</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write every change of the session into the real project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Discard all</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Drop every change of the session</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keep the project&apos;s version</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Drop the agent&apos;s change; the project&apos;s newer version stays</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Take the agent&apos;s version</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Overwrite the project&apos;s newer version with the agent&apos;s (apply with force)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Changed only</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show only the changes and the folders holding them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Read the project folder again (it changed by other hands)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The session is still running: its changes show as the agent makes them, and can be applied or discarded once it ends.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Discard all %n change(s) of this session? The agent&apos;s versions are lost; the project stays as it is.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Discard the agent&apos;s changes to %1? Its versions are lost; the project stays as it is.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Discard changes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Discard</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot read the changes</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n change(s)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>The agent deleted this folder and everything in it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>A folder the agent created, with %n change(s) inside.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>The agent put a folder where the project has a file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n change(s) inside. Select a file to see its diff.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Nothing changed in this folder.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Conflict: %1. Which version should the project keep?</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>%n change(s) here conflict with edits made in the project since the session started. Which versions should it keep?</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Applied %n change(s) to the project.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Discarded %n change(s).</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n change(s) not applied: the project changed there since the session started. Select one to choose which version to keep.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n change(s) skipped:</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sbui::MainWindow</name>
    <message>
        <source>&amp;New session…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start an agent in a new sandbox (Ctrl+Shift+T)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ask the session&apos;s programs to end (SIGTERM)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Kill</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>End the session&apos;s programs at once (SIGKILL)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open &amp;workspace folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open the real project folder in the file manager</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close the window; sessions keep running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Session</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Session</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sessions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Approvals</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Approvals (%1 waiting)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Activity</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The session did not start</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Starting session %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The supervisor did not answer within %1 s.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>network %1 · commands %2 · memory %3 · processes %4 · time limit %5</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> MB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot attach: %1<byte value="xd"/>
</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Approval needed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 wants to run or reach: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kill the session?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every program of session %1 ends at once, without a chance to save. Its workspace changes stay reviewable.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sandbench</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>(%n waiting) </source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>No session selected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recordings unreadable: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Session %1 running in the sandbox</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Session %1 was interrupted (recorded)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Session %1 ended, exit %2 (recorded)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start the &amp;demo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A scripted agent over a fresh copy of a small demo project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Terminal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Changes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replay</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Changes (%1)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Session %1 ended (recorded)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sbui::NewSessionDialog</name>
    <message>
        <source>New session</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Workspace folder:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Command:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Preset: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Policy file…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Policy:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>As the policy says</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>None (loopback only)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Filtered (through the approval proxy)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Host (unfiltered, not recommended)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Network:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> MB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no limit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> %</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Memory:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>P&amp;rocesses:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>C&amp;PU (100 % = one core):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Time limit:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Start</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Effective policy:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Policy file: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workspace folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Policy file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Policies (*.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a workspace folder.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Command: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Enter the command to run.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Network mode host gives the agent this machine&apos;s whole network, unfiltered and unrecorded.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not on this machine&apos;s PATH; it must exist inside the sandbox.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sbui::ReplayController</name>
    <message>
        <source>No recording is open.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sbui::ReplayScrubber</name>
    <message>
        <source>Replay position</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>command</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>connection</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>approval</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>denied</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>event</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1  %2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>… and %n more</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sbui::ReplayView</name>
    <message>
        <source>Previous event</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Previous event (Ctrl+Left)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Play</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Play (Space)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next event</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next event (Ctrl+Right)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1×</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Playback speed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Position / length of the recording</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Go to (1:30)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Jump to a time: 90, 1m30s or 1:30 (Ctrl+G)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the recording as asciicast v2 or JSON Lines</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Search the terminal text (/)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Click a match to go there</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 / %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2, %3 × %4, %5</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No event after %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No event before %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&quot;%1&quot; is not a time; write 90, 1m30s or 1:30.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The recording ends at %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1  %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No terminal text matches &quot;%1&quot;.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Matches for &quot;%1&quot;: %n.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Export failed: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exported to %1.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not export the recording: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>asciicast v2 (*.cast)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JSON Lines (*.jsonl)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export recording</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pause</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pause (Space)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sbui::SessionListModel</name>
    <message numerus="yes">
        <source>running, %n approval(s) waiting</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>running</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>interrupted (its supervisor died)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ended, exit %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ended</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Session %1
%2
%3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Session</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workspace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Started</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Duration</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sbui::TerminalSearchBar</name>
    <message>
        <source>Find in terminal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Find older (Enter)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Find older</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Find newer (Shift+Enter)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Find newer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close the find bar (Escape)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not found</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sbui::TerminalWidget</name>
    <message>
        <source>&amp;Copy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Paste</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select &amp;All</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Find…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sbui::WelcomeView</name>
    <message>
        <source>Isolation (namespaces)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reviewable workspace (overlayfs)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System call filter (seccomp)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Command approval (seccomp notification)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write confinement (Landlock)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resource limits (cgroups)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Try the &amp;demo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;New session…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Welcome to Sandbench</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Supervise AI coding agents in a local sandbox.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>An agent started here works on your project inside a sandbox: it sees a copy of the folder, an empty home and no credentials. What it writes waits for your review. Commands and connections your policy leaves open are put to you while it waits, and every session is recorded for replay.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start the built-in demo: a scripted agent in a sandbox over a copy of a small project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a project folder, a policy and the agent to run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>In the demo a scripted agent fixes a bug, runs the tests, reaches one allowed and one denied server, and tries a dangerous command: you answer it in the approval panel, then review its changes.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This machine</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Check &amp;again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run the checks again, e.g. after applying a fix</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sandboxes cannot run here until the missing items below are fixed: Sandbench refuses to start a weaker sandbox.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sandboxes can run on this machine, with the limits below.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sandboxes can run on this machine, with every protection.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ok</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>missing</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>limited</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fix: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>sbui::WorkspaceModel</name>
    <message numerus="yes">
        <source>%n change(s) inside</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
