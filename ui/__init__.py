"""The app side of GOAT Explorer: session state (``state``), shared caches (``cache``), live
training (``training``) and small page parts (``parts``). Streamlit lives here and in
``pages/``; ``goat_core`` never imports it."""
