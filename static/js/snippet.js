// Predict, reveal, run: the snippet practice panel (editor set-up, Ctrl/Cmd+Enter, autosave).
