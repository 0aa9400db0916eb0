<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>sbui::ActivityModel</name>
    <message numerus="yes">
        <source>%n more file change(s)</source>
        <translation>
            <numerusform>%n more file change</numerusform>
            <numerusform>%n more file changes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n more file change(s) in %1</source>
        <translation>
            <numerusform>%n more file change in %1</numerusform>
            <numerusform>%n more file changes in %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n added</source>
        <translation>
            <numerusform>%n added</numerusform>
            <numerusform>%n added</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n modified</source>
        <translation>
            <numerusform>%n modified</numerusform>
            <numerusform>%n modified</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n deleted</source>
        <translation>
            <numerusform>%n deleted</numerusform>
            <numerusform>%n deleted</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n renamed</source>
        <translation>
            <numerusform>%n renamed</numerusform>
            <numerusform>%n renamed</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>memory limit (%1) reached: the kernel reclaimed memory (%n time(s))</source>
        <translation>
            <numerusform>memory limit (%1) reached: the kernel reclaimed memory (%n time)</numerusform>
            <numerusform>memory limit (%1) reached: the kernel reclaimed memory (%n times)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>memory limit (%1) reached: %n process(es) killed</source>
        <translation>
            <numerusform>memory limit (%1) reached: %n process killed</numerusform>
            <numerusform>memory limit (%1) reached: %n processes killed</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>process limit (%1) reached: %n new process(es) refused</source>
        <translation>
            <numerusform>process limit (%1) reached: %n new process refused</numerusform>
            <numerusform>process limit (%1) reached: %n new processes refused</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>code ran: %1 (%n result(s))</source>
        <translation>
            <numerusform>code ran: %1 (%n result)</numerusform>
            <numerusform>code ran: %1 (%n results)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sbui::ApprovalCard</name>
    <message numerus="yes">
        <source>… (%n more characters)</source>
        <translation>
            <numerusform>… (%n more character)</numerusform>
            <numerusform>… (%n more characters)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sbui::ExecutionBlock</name>
    <message numerus="yes">
        <source>%n more result(s) were not recorded.</source>
        <translation>
            <numerusform>%n more result was not recorded.</numerusform>
            <numerusform>%n more results were not recorded.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sbui::FileReviewPanel</name>
    <message numerus="yes">
        <source>  … and %n more</source>
        <translation>
            <numerusform>  … and %n more</numerusform>
            <numerusform>  … and %n more</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) here run later, on this computer and outside the sandbox, when your own tools use them:</source>
        <translation>
            <numerusform>%n file here runs later, on this computer and outside the sandbox, when your own tools use it:</numerusform>
            <numerusform>%n files here run later, on this computer and outside the sandbox, when your own tools use them:</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Discard all %n change(s) of this session? The agent&apos;s versions are lost; the project stays as it is.</source>
        <translation>
            <numerusform>Discard all %n change of this session? The agent&apos;s versions are lost; the project stays as it is.</numerusform>
            <numerusform>Discard all %n changes of this session? The agent&apos;s versions are lost; the project stays as it is.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n change(s)</source>
        <translation>
            <numerusform>%n change</numerusform>
            <numerusform>%n changes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>A folder the agent created, with %n change(s) inside.</source>
        <translation>
            <numerusform>A folder the agent created, with %n change inside.</numerusform>
            <numerusform>A folder the agent created, with %n changes inside.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n change(s) inside. Select a file to see its diff.</source>
        <translation>
            <numerusform>%n change inside. Select a file to see its diff.</numerusform>
            <numerusform>%n changes inside. Select a file to see its diff.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n change(s) here conflict with edits made in the project since the session started. Which versions should it keep?</source>
        <translation>
            <numerusform>%n change here conflicts with edits made in the project since the session started. Which version should it keep?</numerusform>
            <numerusform>%n changes here conflict with edits made in the project since the session started. Which versions should it keep?</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Applied %n change(s) to the project.</source>
        <translation>
            <numerusform>Applied %n change to the project.</numerusform>
            <numerusform>Applied %n changes to the project.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Discarded %n change(s).</source>
        <translation>
            <numerusform>Discarded %n change.</numerusform>
            <numerusform>Discarded %n changes.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n change(s) not applied: the project changed there since the session started. Select one to choose which version to keep.</source>
        <translation>
            <numerusform>%n change not applied: the project changed there since the session started. Select one to choose which version to keep.</numerusform>
            <numerusform>%n changes not applied: the project changed there since the session started. Select one to choose which version to keep.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n change(s) skipped:</source>
        <translation>
            <numerusform>%n change skipped:</numerusform>
            <numerusform>%n changes skipped:</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) that run later held back: review each, then apply it on its own.</source>
        <translation>
            <numerusform>%n file that runs later held back: review it, then apply it on its own.</numerusform>
            <numerusform>%n files that run later held back: review each, then apply it on its own.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sbui::LeakBanner</name>
    <message numerus="yes">
        <source>&lt;b&gt;%n attempted secret leaks, refused;&lt;/b&gt; the last: %1.</source>
        <translation>
            <numerusform>&lt;b&gt;%n attempted secret leak, refused;&lt;/b&gt; the last: %1.</numerusform>
            <numerusform>&lt;b&gt;%n attempted secret leaks, refused;&lt;/b&gt; the last: %1.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sbui::MainWindow</name>
    <message numerus="yes">
        <source>Deleted %n old recording(s) (%1).</source>
        <translation>
            <numerusform>Deleted %n old recording (%1).</numerusform>
            <numerusform>Deleted %n old recordings (%1).</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>(%n waiting) </source>
        <translation>
            <numerusform>(%n waiting) </numerusform>
            <numerusform>(%n waiting) </numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Models (%n leak(s)!)</source>
        <translation>
            <numerusform>Models (%n leak!)</numerusform>
            <numerusform>Models (%n leaks!)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sbui::ModelUsageView</name>
    <message numerus="yes">
        <source>%n attempted secret leak(s), refused by the proxy:</source>
        <translation>
            <numerusform>%n attempted secret leak, refused by the proxy:</numerusform>
            <numerusform>%n attempted secret leaks, refused by the proxy:</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n model request(s): %1 tokens in, %2 out; %3 read from the prompt cache, %4 written to it.</source>
        <translation>
            <numerusform>%n model request: %1 tokens in, %2 out; %3 read from the prompt cache, %4 written to it.</numerusform>
            <numerusform>%n model requests: %1 tokens in, %2 out; %3 read from the prompt cache, %4 written to it.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sbui::PolicySuggestDialog</name>
    <message numerus="yes">
        <source>%n time(s) in %1, e.g. %2</source>
        <translation>
            <numerusform>%n time in %1, e.g. %2</numerusform>
            <numerusform>%n times in %1, e.g. %2</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n session(s)</source>
        <translation>
            <numerusform>%n session</numerusform>
            <numerusform>%n sessions</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n rule(s) proposed</source>
        <translation>
            <numerusform>%n rule proposed</numerusform>
            <numerusform>%n rules proposed</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>; %n risky, not checked</source>
        <translation>
            <numerusform>; %n risky, not checked</numerusform>
            <numerusform>; %n risky, not checked</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sbui::PortsView</name>
    <message numerus="yes">
        <source>%n open</source>
        <translation>
            <numerusform>%n open</numerusform>
            <numerusform>%n open</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n refused</source>
        <translation>
            <numerusform>%n refused</numerusform>
            <numerusform>%n refused</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sbui::RemoteChangesView</name>
    <message numerus="yes">
        <source>%n change(s) conflict with edits made in the project on %1 since the session started. Which versions should it keep?</source>
        <translation>
            <numerusform>%n change conflicts with edits made in the project on %1 since the session started. Which version should it keep?</numerusform>
            <numerusform>%n changes conflict with edits made in the project on %1 since the session started. Which versions should it keep?</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) written into the project on %1.</source>
        <translation>
            <numerusform>%n file written into the project on %1.</numerusform>
            <numerusform>%n files written into the project on %1.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n change(s) of session %1 on %2, read from there: apply or discard them there.</source>
        <translation>
            <numerusform>%n change of session %1 on %2, read from there: apply or discard it there.</numerusform>
            <numerusform>%n changes of session %1 on %2, read from there: apply or discard them there.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n change(s) of session %1 on %2, read from there. Apply and discard them once the session ended.</source>
        <translation>
            <numerusform>%n change of session %1 on %2, read from there. Apply or discard it once the session ended.</numerusform>
            <numerusform>%n changes of session %1 on %2, read from there. Apply and discard them once the session ended.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sbui::RemoteHostLink</name>
    <message numerus="yes">
        <source>connected, %n session(s)</source>
        <translation>
            <numerusform>connected, %n session</numerusform>
            <numerusform>connected, %n sessions</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sbui::ReplayScrubber</name>
    <message numerus="yes">
        <source>… and %n more</source>
        <translation>
            <numerusform>… and %n more</numerusform>
            <numerusform>… and %n more</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sbui::ReplayView</name>
    <message numerus="yes">
        <source>Matches for &quot;%1&quot;: %n.</source>
        <translation>
            <numerusform>Matches for &quot;%1&quot;: %n.</numerusform>
            <numerusform>Matches for &quot;%1&quot;: %n.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sbui::ResultsView</name>
    <message numerus="yes">
        <source>%n execution(s) of code, in the order they ran.</source>
        <translation>
            <numerusform>%n execution of code.</numerusform>
            <numerusform>%n executions of code, in the order they ran.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n execution(s) had run at %2 of the replay.</source>
        <translation>
            <numerusform>%1 of %n execution had run at %2 of the replay.</numerusform>
            <numerusform>%1 of %n executions had run at %2 of the replay.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sbui::SessionListModel</name>
    <message numerus="yes">
        <source>running, %n approval(s) waiting</source>
        <translation>
            <numerusform>running, %n approval waiting</numerusform>
            <numerusform>running, %n approvals waiting</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sbui::SettingsDialog</name>
    <message numerus="yes">
        <source>%n recording(s), %1, oldest first</source>
        <translation>
            <numerusform>%n recording, %1, oldest first</numerusform>
            <numerusform>%n recordings, %1, oldest first</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sbui::SnapshotsDialog</name>
    <message numerus="yes">
        <source>%n entries</source>
        <translation>
            <numerusform>%n entry</numerusform>
            <numerusform>%n entries</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n change(s)</source>
        <translation>
            <numerusform>%n change</numerusform>
            <numerusform>%n changes</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sbui::WorkspaceModel</name>
    <message numerus="yes">
        <source>%n change(s) inside</source>
        <translation>
            <numerusform>%n change inside</numerusform>
            <numerusform>%n changes inside</numerusform>
        </translation>
    </message>
</context>
</TS>
