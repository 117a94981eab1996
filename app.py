"""GOAT Explorer: ``streamlit run app.py`` (the app opens on Les Misérables, ready to train).

The entry point only sets the page up, builds this session's state, draws the sidebar and
hands over to the page the user picked; pages live in ``app_pages/``, computation in
``goat_core``, caches and session state in ``ui``. Not in ``pages/``: a server whose first
request opens a page by its address (a shared link after a restart) would run a folder of that
name as Streamlit's old multipage app, the page alone without this script.
"""

import os

import streamlit as st
import torch

from ui import classroom, navigation, parts, state

st.set_page_config(page_title="GOAT Explorer", page_icon=":material/hub:", layout="wide")
# One intra-op thread per training on small machines: sessions train side by side without
# starving each other (Streamlit runs each session's script in its own thread).
torch.set_num_threads(max(1, (os.cpu_count() or 2) // 2))

ex = state.get()
page = st.navigation(navigation.streamlit_pages())  # the pages: ui/navigation.py
parts.seed_input()
classroom.projector_toggle()
classroom.names_toggle()
page.run()
parts.finish(ex)  # after the page: it may have changed the graph, the run or the pair
